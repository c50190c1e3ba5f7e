// auto — not a noise distribution of its own: the calibrated mechanism with the least expected
// loss, among every mechanism dpagg implements that serves the release (a scalar, or a vector of
// dimension T: Mechanism::serves), for this epsilon, delta and sensitivity.
//
// The objective is the expected squared error (l2, the default) or the expected absolute error
// (l1), chosen by the option objective=l1|l2 or, when the spec names none, by the request's typed
// objective (the PostgreSQL glue passes the GUC dpagg.objective; registry.h).  For a vector
// release the loss is E ||X||_2^2.  Each candidate is calibrated with its own certified calibration; a candidate
// that refuses the request (e.g. classic_gaussian for epsilon > 1) is skipped.  The choice depends
// only on public values (epsilon, delta, sensitivity, objective), so it reveals nothing.
// Privacy: that of the chosen mechanism, whose calibration is returned unchanged.
#pragma once

#include <vector>

#include "dpagg_core.h"
#include "mechanism.h"

namespace dpagg {

// Every implemented mechanism that serves and accepts the request (Mechanism::auto_considers),
// calibrated for the objective (l1 or l2; l2 for vector releases):
// the candidates `auto` chooses among (also listed by dp_calibrate).
std::vector<dpagg_calibration> auto_candidates(const PrivacyRequest& req, bool l1);

const Mechanism& auto_mechanism();

}  // namespace dpagg
