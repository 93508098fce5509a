// Registers the CPU sorters of this folder (importing a sorter's module registers it).
import "./range.js";
import "./skew.js";
