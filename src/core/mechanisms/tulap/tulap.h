// tulap — truncated-uniform-Laplace (Tulap) noise of Awan & Slavkovic, "Differentially Private
// Uniformly Most Powerful Tests for Binomial Data" (NeurIPS 2018, Section 3, Definition 4.1 of the
// Tulap distribution) and "Differentially private inference for binomial data" (Journal of Privacy
// and Confidentiality 10(1), 2020), the canonical noise distribution of (eps, delta)-DP by Awan &
// Vadhan, "Canonical Noise Distributions and Private Hypothesis Tests" (Annals of Statistics 51(2),
// 2023, Section 5).  Release q + D N for a real-valued query of sensitivity D, N ~ Tulap(0, b, qt):
// b = e^-eps, N0 = G1 - G2 + U (G1, G2 independent geometric, P(G = k) = (1 - b) b^k; U uniform on
// (-1/2, 1/2)), and for delta > 0 N is N0 conditioned on |N0| <= L, the central 1 - qt of its law.
//
// Privacy (our wording; derivation in docs/tulap.md).  N0's density is b^{|round(x)|} (1-b)/(1+b):
// symmetric, non-increasing in |x|, and f(t + 1) = b f(t) for every t >= 0.  For |mu| <= 1,
// |x - mu| <= |x| + 1, so f(x - mu) >= f(|x| + 1) = b f(x): the ratio f(x)/f(x - mu) never exceeds
// e^eps where both are positive.  Truncation to [-L, L] keeps
// that ratio on the common support, and the only outputs where one side has density 0 are
// [-L, -L + mu) (and its mirror image).  So the privacy profile at eps for a shift mu in [0, 1] is
//     delta(mu) = P(N in [-L, -L + mu)),
// non-decreasing in mu: the shift D (mu = 1) decides, non-integer shifts included, and
//     delta(L) = (1 - b) S / ((1 - b) + 2 b (1 - S)),   S = P(|N0| > L | |N0| >= 1/2)
// (docs/tulap.md §2).  Solving delta(L) = delta gives P(N0 > L) = b delta / (1 - b + 2 b delta), i.e.
// the papers' truncation mass qt = 2 delta b / (1 - b + 2 delta b).  delta = 0: no truncation; the law
// is then the staircase with gamma = 1/2 (pure eps-DP).
//
// Conservative calibration.  eps above 700 is treated as 700.  L is computed for delta (1 - 1e-10),
// rounded up (more support, less delta), and delta(L) is re-evaluated at the very double L, raised
// by 2e-11 relative (rounding of the exponentials, below 1e-12, and the sampler's margin below), and
// must be <= delta; L is raised until it is.  The sampler chooses the outer part (|N| >= 1/2) with a
// probability raised by 2^-45 relative: that lowers the centre's density relative to the first step
// (ratio stays in [1, e^eps]) and raises the profile by at most that factor, charged above.
//
// Loss in closed form (sums of geometric series; direct summation in long double where the series'
// closed form would cancel).  Sampler: the sign, the part (centre or outer), and within the outer
// part the inverse of its survival function from a full-resolution uniform, so that the far tail up
// to L is drawn with probabilities far below 2^-53 (the profile lives there).
#pragma once

#include "mechanism.h"

namespace dpagg {

const Mechanism& tulap_mechanism();

}  // namespace dpagg
