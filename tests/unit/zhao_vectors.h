// zhao_vectors.h — vectors Z20-Z28 of docs/gaussian_rules.md §9 (the calibration rules of Zhao et
// al., "Reviewing and Improving the Gaussian Mechanism for Differential Privacy", 2019; values
// computed from the formulas in 30-60-digit arithmetic), shared by the tests of the
// analytic Gaussian and of every other Gaussian rule (test_gaussian_rules.cpp).
#pragma once

#include <vector>

namespace dpagg_test {

// docs/gaussian_rules.md §9, Z20–Z28, Δ = 1: sigma for OPT, M1, M2, D14, D06, pOPT, M3, M4, zCDP.
struct ZRow {
  const char* id;
  double eps, delta;
  double s[9];
};
inline const std::vector<ZRow> kZ = {
    {"Z20", 1, 1e-5, {3.7306316, 4.1336112, 4.6088581, 4.8448053, 4.9408648, 4.4441233, 4.5276070, 4.7569474, 4.9005552}},
    {"Z21", 0.1, 1e-5, {30.749566, 38.009711, 45.114542, 48.448053, 49.408648, 44.174563, 44.284640, 46.625617, 48.089233}},
    {"Z22", 0.5, 1e-5, {7.0318267, 8.0284572, 9.1105061, 9.6896105, 9.8817297, 8.8483182, 8.9461270, 9.4099465, 9.7001431}},
    {"Z23", 1, 1e-6, {4.2246789, 4.6341369, 5.0841684, 5.2988025, 5.3867723, 4.9160143, 4.9918027, 5.2187692, 5.3499801}},
    {"Z24", 2, 1e-6, {2.2304763, 2.3915847, 2.5894573, 2.6494013, 2.6933861, 2.4890720, 2.5440863, 2.6556205, 2.7201670}},
    {"Z25", 5, 1e-6, {0.98004900, 1.0230266, 1.0889928, 1.0597605, 1.0773545, 1.0464727, 1.0716424, 1.1143321, 1.1390935}},
    {"Z26", 10, 1e-10, {0.68304397, 0.70027226, 0.72667516, 0.68189434, 0.68875247, 0.70686912, 0.71648066, 0.73623494, 0.74566801}},
    {"Z27", 0.01, 1e-6, {306.35038, 408.43128, 498.68266, 529.88025, 538.67723, 489.16410, 489.26604, 512.39369, 525.74728}},
    {"Z28", 1, 0.05, {1.3327783, 1.4538029, 2.1162378, 2.5372725, 2.7162030, 2.0186415, 2.1884375, 2.3951819, 2.6373323}},
};
// Column indexes of ZRow::s.
enum ZColumn { kOpt = 0, kM1, kM2, kD14, kD06, kPOpt, kM3, kM4, kZcdp };

}  // namespace dpagg_test
