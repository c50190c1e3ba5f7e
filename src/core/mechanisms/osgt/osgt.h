// osgt — offset-symmetric Gaussian tails (Sadeghi & Korki, "Offset-Symmetric Gaussians for
// Differential Privacy", 2021), scalar (k = 1) form.  Derivations: docs/osgt.md.
//
// Noise.  With scale sigma > 0 and offset m = r sigma (shape r = m/sigma >= 0), the density keeps
// the positive tail of N(-m, sigma^2) and the negative tail of N(m, sigma^2), renormalised:
//     f(y) = exp(-(|y| + m)^2 / (2 sigma^2)) / (2 sqrt(2 pi) sigma Q(r))
// (the paper's eq. (1) prints sigma^2 in the normaliser; sigma is right: docs/osgt.md §1).  It is
// log-concave (log f = -y^2/(2 sigma^2) - m|y|/sigma^2 + const): Laplace-like near 0, Gaussian in
// the tails; r = 0 is N(0, sigma^2).  For r <= Q^-1(1/4) ~ 0.6745 (the default) it is
// sigma^2-sub-Gaussian (Sadeghi & Korki, Prop. 2).
//
// Privacy.  Sadeghi & Korki, Theorem 1 (proof in their App. C, re-derived in docs/osgt.md §3):
// the privacy loss ln f(y)/f(y - D) is piecewise linear and non-increasing in y, so the worst
// event is a half-line, and for a shift D, A = sigma/D, B = sigma/(2m + D),
// eps_b = D(D + 2m)/(2 sigma^2):
//     eps <= eps_b:  delta(eps) = 1 - [Q(1/(2B) - B eps) + e^eps Q(1/(2B) + B eps)] / (2 Q(r))
//     eps >  eps_b:  delta(eps) = [Q(A eps - 1/(2A)) - e^eps Q(A eps + 1/(2A))] / (2 Q(r))
// (the second branch is the Gaussian profile divided by 2Q(r)).  Both branches are increasing in
// the shift (App. C), so the shift D is the worst case, and integer-valued queries need nothing
// else.  By scale invariance delta depends only on (r, D/sigma, eps), and so, for a fixed shape r,
// it is strictly decreasing in sigma (docs/osgt.md §4): the calibration is a 1-D root search in
// sigma.
//
// Calibration (conservative).  The profile is evaluated with certified enclosures: every Q and
// e^eps Q term gets an explicit relative error bound (Boost erfc, the rounding of its argument,
// exp/log), the subtracted term its lower bound, and near the branch point both branches are
// evaluated and the larger taken (the true value is one of them).  math/scale_search.h finds the
// least sigma whose bound is <= delta, from the feasible side, and re-checks the returned double;
// delta_bound is that bound.  The vectors O5, O8 and O17/O18 (docs/osgt.md §7) are reproduced in
// the unit tests, and tests/unit/test_osgt.cpp re-checks the profile by quadrature over a dense set
// of shifts.
//
// Options: r = shape m/sigma, 0 <= r <= 8, default 0.6745 (Q^-1(1/4)).
// Sampling: inverse CDF of |Y|: |Y| = sigma (Q^-1(U Q(r)) - r), U uniform on (0, 1) at full
// resolution (random.h), and an independent fair sign.
// Loss: E|Y| = sigma (lambda(r) - r), Var Y = sigma^2 (1 + r^2 - r lambda(r)),
// lambda(r) = phi(r)/Q(r) (Sadeghi & Korki, eq. (9); docs/osgt.md §2).
#pragma once

#include "math/gaussian.h"  // ProfileBound
#include "mechanism.h"

namespace dpagg {

// The pieces of the calibration, exposed for tests.  Shape r = m/sigma (m the offset);
// sensitivity D.

// The exact privacy profile of Sadeghi & Korki 2021, Theorem 1 (eq. (O1) of docs/osgt.md §3) at
// epsilon for OSGT noise with scale sigma and offset m = r sigma; `upper` is a certified upper
// bound (rounding included).
ProfileBound osgt_profile(double sigma, double r, double epsilon, double sensitivity);

// The smallest sigma (to 1e-12 relative, feasible side) whose certified profile is <= delta.
double osgt_sigma(double r, double epsilon, double delta, double sensitivity);

// E|Y| / sigma = lambda(r) - r and Var Y / sigma^2 = 1 + r^2 - r lambda(r), lambda(r) = phi(r)/Q(r).
double osgt_l1_unit(double r);
double osgt_l2_unit(double r);

const Mechanism& osgt_mechanism();

}  // namespace dpagg
