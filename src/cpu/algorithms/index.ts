// Registers every CPU suffix sorter (importing a file registers its algorithm).
import "./sais.js";
