// discrete_laplace — the geometric mechanism: integer noise with P(X = k) = (1 - p)/(1 + p) p^|k|,
// k in Z, p = exp(-1/s), s = D/eps; for integer-valued queries only (PrivacyRequest.integer_valued:
// answers are integers and D, the sensitivity, is a whole number).
//
// Source.  Arpita Ghosh, Tim Roughgarden, Mukund Sundararajan, "Universally Utility-Maximizing
// Privacy Mechanisms", STOC 2009 / SIAM J. Computing 41(6), 2012 (the alpha-geometric mechanism
// for count queries, alpha = e^-eps at sensitivity 1; at sensitivity D dpagg takes alpha = e^(-eps/D)).  The argument is written out again in docs/truncated_laplace.md §2.
//
// Privacy (pure eps-DP).  Neighbouring answers differ by an integer m, 1 <= |m| <= D, and for
// every output k, P(X = k) / P(X = k - m) = p^(|k| - |k - m|) <= p^-|m| <= p^-D = e^(D/s) <= e^eps
// since |k - m| - |k| <= |m|.  A ratio bound at every output gives eps-DP with delta = 0.
// A delta > 0 in the request is accepted but not used: the calibration is the pure one
// (delta_bound = 0).  The noise is sampled as the difference of two independent geometric
// variables on {0, 1, ...} with P(G >= k) = p^k (its law is the one above), each by inversion:
// G = floor(-s ln U), U uniform on (0, 1) at full resolution.  Every draw is an integer-valued
// double.
//
// Calibration (conservative): s = (D/eps)(1 + 2^-48), and D/s <= eps is re-checked for the double
// (with its division's rounding); delta_bound = 0.
// Loss: E|X| = 2p/(1 - p^2), E[X^2] = 2p/(1 - p)^2 (1 - p^j by expm1).
// Tail: P(|X| > w) = 2 p^m/(1 + p), m = floor(w) + 1.
// Not stated as zCDP (zcdp_rho NaN).
//
// cal.scale = s, cal.params = {s, p}.
#pragma once

#include "mechanism.h"

namespace dpagg {

const Mechanism& discrete_laplace_mechanism();

}  // namespace dpagg
