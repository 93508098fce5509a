// Registers every GPU suffix sorter (importing a file registers its algorithm).
import "./osipov.js";
import "./ls.js";
import "./skew.js";
import "./spd.js";
import "./hybrid.js";
import "./difference-cover.js";
