// test_laplace.cpp — the Laplace mechanism (src/core/mechanisms/laplace/): its calibration against
// vector D2 of docs/generalized_gaussian.md §6 and the closed forms, and its certificate re-checked
// by quadrature of the hockey-stick divergence (tests/unit/oracles/hockey_stick.h): feasible,
// certified and tight.  Its noise is tested with the shared samplers (test_samplers.cpp).
#include <cmath>
#include <string>

#include "oracles/hockey_stick.h"
#include "test_support.h"

using dpagg_oracle::laplace_delta_quad;
using dpagg_oracle::LD;
using dpagg_oracle::Quad;
using dpagg_test::calibrate;
using dpagg_test::rel_err;

namespace {

const double kEps[] = {0.01, 0.1, 0.5, 1, 2, 5, 10, 20};
const double kSens[] = {1.0, 123.456};

}  // namespace

TEST(LaplaceCalibration, D2Vectors) {
  struct V { double eps, delta, b; };
  const V vs[] = {{1, 1e-5, 0.99998000030}, {0.1, 1e-6, 9.9998000039}, {1, 0.05, 0.90695824725}};
  for (const V& v : vs) {
    dpagg_calibration cal = calibrate("laplace", v.eps, v.delta, 1.0);
    EXPECT_LT(rel_err(cal.scale, v.b), 1e-9) << "eps=" << v.eps << " delta=" << v.delta;
    EXPECT_LE(cal.delta_bound, v.delta);
  }
}

TEST(LaplaceCalibration, ClosedFormAndPureDp) {
  for (double sens : {1.0, 0.003, 77.0, 1e12}) {
    for (double e : {0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0}) {
      // delta = 0: b = sensitivity / eps, made a tiny bit larger (never smaller).
      dpagg_calibration pure = calibrate("laplace", e, 0.0, sens);
      double ideal = sens / e;
      EXPECT_GE(pure.scale, ideal) << "eps=" << e << " sens=" << sens;
      EXPECT_LE(pure.scale, ideal * (1 + 1e-11)) << "eps=" << e << " sens=" << sens;
      EXPECT_EQ(pure.delta_bound, 0.0);
      EXPECT_EQ(pure.l1, pure.scale);
      EXPECT_LT(rel_err(pure.l2, 2 * pure.scale * pure.scale), 1e-15);
      for (double d : {1e-2, 1e-5, 1e-8, 1e-10}) {
        dpagg_calibration cal = calibrate("laplace", e, d, sens);
        double want = sens / (e - 2.0 * std::log1p(-d));
        EXPECT_GE(cal.scale, want) << "eps=" << e << " delta=" << d;
        EXPECT_LT(rel_err(cal.scale, want), 1e-11) << "eps=" << e << " delta=" << d;
        EXPECT_LE(cal.scale, pure.scale);
        EXPECT_LE(cal.delta_bound, d);
      }
    }
  }
}

TEST(LaplaceCertificate, FeasibleCertifiedAndTight) {
  int n = 0;
  for (double sens : kSens)
    for (double e : kEps)
      for (double d : {0.0, 1e-2, 1e-5, 1e-8, 1e-10}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << sens);
        dpagg_calibration cal = calibrate("laplace", e, d, sens);
        const double b = cal.scale;
        Quad q = laplace_delta_quad(b, e, sens);
        EXPECT_LE(q.value + q.err, static_cast<LD>(d));
        EXPECT_LE(q.value + q.err, static_cast<LD>(cal.delta_bound));
        EXPECT_LE(cal.delta_bound, d);
        Quad qs = laplace_delta_quad(b * (1 - 1e-9), e, sens);
        EXPECT_GT(qs.value - qs.err, static_cast<LD>(d));
        ++n;
      }
  EXPECT_EQ(n, 80);
}
