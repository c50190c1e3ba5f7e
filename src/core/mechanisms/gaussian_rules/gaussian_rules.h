// gaussian_rules — Gaussian noise N(0, sigma^2) under several calibration rules.  One
// distribution, so one sampler; the rules differ only in how sigma is chosen.  "Zhao et al." below
// is Zhao, Wang, Bai, Lam, Xu, Shi, Ren, Yang, Liu & Yu, "Reviewing and Improving the Gaussian
// Mechanism for Differential Privacy" (arXiv 2019); every rule is derived in
// docs/gaussian_rules.md.  Every rule is certified the same way: the certified Gaussian privacy
// profile delta_G of math/gaussian.h (Balle & Wang 2018, Thm 8; Zhao et al., Thm 2; eq. (G1) of
// docs/gaussian_rules.md) is evaluated at the returned double and must be <= delta; delta_bound
// reports it.  Closed forms are not trusted on their own: a closed form whose check fails by
// rounding is stepped up by 1e-15 relative (a few times at most), else refused.
//
// analytic_gaussian — Balle & Wang (2018), "Improving the Gaussian mechanism": the smallest sigma
//   with delta_G(sigma) <= delta (Zhao et al. call it DP-OPT).  Exact for every eps > 0,
//   0 < delta < 1.  Solved by TOMS 748 in log sigma to 1e-12 relative against a certified upper
//   bound of delta_G (rounding error included), then the returned double is re-checked, so the
//   answer is always on the feasible side.
//
// classic_gaussian — Dwork & Roth (2014), Thm A.1 ("Dwork-2014" in Zhao et al.):
//   sigma = sqrt(2 ln(1.25/delta)) D / eps, proved only for eps < 1 (and not private for large
//   eps: Zhao et al., Thm 1).  dpagg accepts eps <= 1 and re-checks the result against delta_G,
//   refusing it if the check fails.
//
// dwork2006_gaussian — Dwork, Kenthapadi, McSherry, Mironov, Naor (2006) ("Dwork-2006" in Zhao
//   et al., eq. (1)): sigma = sqrt(2 ln(2/delta)) D / eps, proved only for eps <= 1; same policy as
//   classic_gaussian (refused above eps = 1, re-checked against delta_G).
//
// zhao1_gaussian — Zhao et al., Theorem 4 ("Mechanism 1"), valid for every eps > 0 and
//   0 < delta < 1:  t = 2 delta + e^eps erfc(sqrt eps); if t < 2, a~ = inverfc(t) and
//   b = inverfc(2 delta / (1 - e^eps erfc(sqrt(a~^2 + eps)) / t)), else b = 0;
//   sigma = (b + sqrt(b^2 + eps)) D / (eps sqrt 2).  Privacy: the DP-OPT root a satisfies a < b
//   (Lemma 1, App. G), and sigma is increasing in that root, so sigma > sigma_OPT.
//   e^eps erfc(x) is evaluated as erfcx(x) e^(eps - x^2) (no overflow for large eps).
//
// zhao2_gaussian — Zhao et al., Theorem 5 ("Mechanism 2"), 0 < delta < 0.5, every eps > 0:
//   c = sqrt(ln(2 / (sqrt(16 delta + 1) - 1))), sigma = (c + sqrt(c^2 + eps)) D / (eps sqrt 2).
//   Privacy: b < c (Lemma 2, App. H), so sigma > sigma_Mechanism-1 > sigma_OPT.
//
// zcdp_gaussian — the zCDP route (Zhao et al. Sec. VII; Bun & Steinke 2016, Prop. 1.3 and 1.6):
//   N(0, sigma^2) is rho-zCDP with rho = D^2/(2 sigma^2), and rho-zCDP implies
//   (rho + 2 sqrt(rho ln(1/delta)), delta)-DP.  rho is derived from the request (eps, delta) as the
//   largest rho that converts to it: rho = (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2, so
//   sigma = D (sqrt(L) + sqrt(L + eps)) / (sqrt 2 eps), L = ln(1/delta).  Useful when the release
//   is accounted in zCDP (dpagg_zcdp_rho reports that rho); as (eps, delta)-DP it is looser than
//   analytic_gaussian.  The certificate is still the exact delta_G check.
//
// Probabilistic DP (pDP; Zhao et al. Sec. VI; docs/gaussian_rules.md §7): M is (eps, delta)-pDP
//   when, for all neighbours, P_{y ~ M(D)}[ |ln(f_M(D)(y) / f_M(D')(y))| > eps ] <= delta.  For
//   Gaussian noise the privacy loss at shift S is L ~ N(S^2/(2 sigma^2), S^2/sigma^2) (Zhao et al.
//   App. K), so the pDP profile is
//       P_G(sigma) = Q(eps sigma/D - D/(2 sigma)) + Q(eps sigma/D + D/(2 sigma)),
//   non-decreasing in the shift S (its S-derivative is phi(a)(eps sigma/S^2 + 1/(2 sigma)) +
//   phi(b)(eps sigma/S^2 - 1/(2 sigma)) > 0 because b > |a|), so S = D is the worst case, and
//   strictly decreasing in sigma.  pDP implies DP with the same (eps, delta) (Zhao et al. Lemma 3),
//   so these rules are ALSO (eps, delta)-DP, and their delta_bound is the DP profile delta_G as for
//   every rule here; they are certified against P_G as well.  They always add more noise than
//   analytic_gaussian (Zhao et al. Sec. VI) and are offered only for users who want pDP
//   semantics, so they are not auto candidates.
// pdp_gaussian — Zhao et al. Theorem 6 ("pDP-OPT"): the smallest sigma with P_G(sigma) <= delta,
//   by the same certified TOMS 748 search as analytic_gaussian (math/scale_search.h).
// zhao3_pdp_gaussian — Theorem 8 ("Mechanism 3"): x = inverfc(delta) (Lemma 5: d < inverfc(delta)).
// zhao4_pdp_gaussian — Theorem 9 ("Mechanism 4"): x = sqrt(ln(2/(sqrt(8 delta + 1) - 1)))
//   (Lemma 6: inverfc(delta) < x).  Both: sigma = (x + sqrt(x^2 + eps)) D / (eps sqrt 2).
//
// Loss: E|X| = sigma sqrt(2/pi), E[X^2] = sigma^2.
#pragma once

#include "mechanism.h"

namespace dpagg {

// One registry entry per rule; all draw N(0, sigma^2) and differ only in how sigma is chosen.
const Mechanism& analytic_gaussian_mechanism();
const Mechanism& classic_gaussian_mechanism();
const Mechanism& dwork2006_gaussian_mechanism();
const Mechanism& zhao1_gaussian_mechanism();
const Mechanism& zhao2_gaussian_mechanism();
const Mechanism& zcdp_gaussian_mechanism();
const Mechanism& pdp_gaussian_mechanism();
const Mechanism& zhao3_pdp_gaussian_mechanism();
const Mechanism& zhao4_pdp_gaussian_mechanism();

}  // namespace dpagg
