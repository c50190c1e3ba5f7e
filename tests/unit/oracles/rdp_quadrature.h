// rdp_quadrature — the Renyi divergence of OSGT noise by direct quadrature.
//
// Independent of the production curve (src/core/math/rdp.cpp, osgt_rdp, which evaluates the
// closed form of docs/osgt.md §6.2 in log space): D_alpha is integrated numerically from the
// density, log f^alpha g^(1 - alpha), by Boost's Gauss-Kronrod rule over the three smooth pieces
// (the only production call is log Q(r) for the normaliser).
#pragma once

namespace dpagg_oracle {

// D_alpha(OSGT(m, sigma) || OSGT(m, sigma) shifted by d), alpha > 1.
double rdp_quadrature(double alpha, double m, double sigma, double d);

}  // namespace dpagg_oracle
