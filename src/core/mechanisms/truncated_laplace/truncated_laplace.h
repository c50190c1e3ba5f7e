// truncated_laplace — Laplace noise cut off at +-A: density f(x) = exp(-|x|/lambda) / Z on
// [-A, A] and 0 outside, Z = 2 lambda (1 - exp(-A/lambda)).
//
// Source.  Quan Geng, Wei Ding, Ruiqi Guo, Sanjiv Kumar, "Tight Analysis of Privacy and Utility
// Tradeoff in Approximate Differential Privacy", AISTATS 2020 (arXiv:1810.00877), the section that
// defines the truncated Laplacian mechanism and proves its (eps, delta) guarantee: lambda = D/eps and
//     A = lambda ln(1 + (e^eps - 1) / (2 delta)).
// The argument below is written out again (docs/truncated_laplace.md §1); the rounding and the
// certificate are dpagg's.
//
// Privacy, in brief.  Compare f with its shift f(. - mu), 0 < mu <= D (negative shifts are the
// mirror image, f being even).  Where both are positive, x in [mu - A, A], the ratio
// f(x) / f(x - mu) = exp((|x - mu| - |x|)/lambda) is at most exp(mu/lambda) <= exp(D/lambda) <= e^eps,
// so (f - e^eps f(. - mu))_+ vanishes there: the whole hockey-stick divergence is the mass f puts
// where the shifted density is 0, the strip [-A, mu - A):
//     H_eps(mu) = integral_{-A}^{mu-A} f = expm1(mu/lambda) / (2 expm1(A/lambda)),
// increasing in mu, so mu = D decides.  At lambda = D/eps it equals (e^eps - 1)/(2 (e^{A/lambda} - 1)),
// which the choice of A makes exactly delta.  (delta = 0 would need A = infinity: the Laplace
// mechanism; refused.)  Integer-valued requests get the same calibration: the worst shift is D.
//
// Calibration (conservative): lambda = (D/eps)(1 + 2^-48), so that D/lambda <= eps holds for the
// double; A from the formula in log form (no overflow of e^eps up to eps = 1e9), times (1 + 2^-40);
// the profile is then bounded at the very doubles (lambda, A) — arguments rounded to the unsafe
// side, a rounding margin on the logarithm — and A is stepped up by (1 + 2^-40) while that bound
// exceeds delta.  delta_bound reports the bound.
//
// Loss: with a = A/lambda, E|X| = lambda P(2, a) / (1 - e^-a) and E[X^2] = 2 lambda^2 P(3, a) /
// (1 - e^-a), P the regularised lower incomplete gamma function (no cancellation for small a).
// Tail: P(|X| > w) = expm1(a - w/lambda) / expm1(a) for w < A, and 0 for w >= A.
// Not zCDP (the privacy loss is unbounded on the strip).
//
// cal.scale = lambda, cal.params = {A}.
#pragma once

#include "mechanism.h"

namespace dpagg {

const Mechanism& truncated_laplace_mechanism();

}  // namespace dpagg
