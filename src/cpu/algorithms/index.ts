// Registers every CPU suffix sorter (importing a sorter's module registers it).
import "./sais.js";
import "./range.js";
import "./skew.js";
