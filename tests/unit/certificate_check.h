// certificate_check.h — the re-check of a scalar calibration's certificate shared by the tests of
// osgt and generalized_gaussian: the brute-force hockey-stick quadrature of
// tests/unit/oracles/hockey_stick.h over a dense set of shifts.
#pragma once

#include <functional>

#include "oracles/hockey_stick.h"
#include "test_support.h"

namespace dpagg_test {

// The profile at every shift S in a dense set of (0, D] is at most the profile at D, which is at
// most delta and below the core's certified delta_bound; the bound is within `loose` of the
// profile; and `shrink` less noise is not private.
inline void check_scalar_certificate(
    const dpagg_calibration& cal,
    const std::function<std::function<dpagg_oracle::LD(dpagg_oracle::LD)>(dpagg_oracle::LD)>& density_at_scale,
    dpagg_oracle::LD width, int* checked, dpagg_oracle::LD loose = 1e-6L, double shrink = 1e-8,
    int shifts = 24) {
  using dpagg_oracle::brute_hockey;
  using dpagg_oracle::LD;
  using dpagg_oracle::Quad;
  SCOPED_TRACE(testing::Message() << cal.spec << " eps=" << cal.epsilon << " delta=" << cal.delta
                                  << " sens=" << cal.sensitivity << " scale=" << cal.scale);
  const LD D = cal.sensitivity, eps = cal.epsilon;
  const auto log_p = density_at_scale(cal.scale);
  const Quad at_d = brute_hockey(log_p, D, eps, width);
  EXPECT_LE(at_d.value + at_d.err, static_cast<LD>(cal.delta));
  EXPECT_LE(at_d.value + at_d.err, static_cast<LD>(cal.delta_bound) * (1 + 1e-12L));
  // Not vacuous: the certified bound is close to the true profile.
  EXPECT_LE(static_cast<LD>(cal.delta_bound), at_d.value * (1 + loose) + 1e-300L);
  for (int i = 1; i <= shifts; ++i) {
    const LD S = D * i / shifts;
    const Quad q = brute_hockey(log_p, S, eps, width);
    EXPECT_LE(q.value, at_d.value * (1 + 1e-12L) + 1e-300L) << "shift " << (double)S;
  }
  const Quad shrunk = brute_hockey(density_at_scale(cal.scale * (1 - shrink)), D, eps, width);
  EXPECT_GT(shrunk.value - shrunk.err, static_cast<LD>(cal.delta)) << "not tight";
  ++*checked;
}

}  // namespace dpagg_test
