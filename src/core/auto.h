// auto.h — the candidates `auto` chooses among (also listed by dp_calibrate).
#pragma once

#include <vector>

#include "dpagg_core.h"
#include "mechanism.h"

namespace dpagg {

// Every implemented mechanism that accepts the request, calibrated for the objective (l1 or l2).
std::vector<dpagg_calibration> auto_candidates(const PrivacyRequest& req, bool l1);

}  // namespace dpagg
