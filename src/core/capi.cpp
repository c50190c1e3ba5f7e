// capi.cpp — the C boundary of the core.  Every entry point catches everything: nothing thrown
// in the core crosses into the (C) PostgreSQL glue.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <sstream>
#include <string>

#include "dpagg_core.h"
#include "errors.h"
#include "guarded.h"
#include "interval.h"
#include "mechanisms/auto/auto.h"
#include "registry.h"
#include "random.h"
#include "release.h"

namespace {
int (*g_should_stop)(void) = nullptr;
}  // namespace

namespace dpagg {
void check_interrupt() {
  if (g_should_stop != nullptr && g_should_stop() != 0)
    throw Error(DPAGG_CANCELED, "canceling calibration on request");
}
}  // namespace dpagg

namespace {

using dpagg::guarded;
using dpagg::set_error;

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

}  // namespace

extern "C" {

int dpagg_mechanism_count(void) {
  int n = 0;
  guarded(nullptr, [&] { n = static_cast<int>(dpagg::listed_mechanisms().size()); });
  return n;
}

int dpagg_mechanism_get(int index, dpagg_mechanism_info* out) {
  return guarded(nullptr, [&] {
    const auto& list = dpagg::listed_mechanisms();
    if (index < 0 || static_cast<size_t>(index) >= list.size())
      throw dpagg::Error(DPAGG_INTERNAL, "no such mechanism index");
    const dpagg::Mechanism* m = list[static_cast<size_t>(index)];
    out->name = m->name();
    out->summary = m->summary();
    out->guarantee = m->guarantee();
    out->accepts_zero_delta = m->accepts_zero_delta() ? 1 : 0;
  });
}

int dpagg_validate_spec(const char* spec, char* canonical, size_t canonical_len, dpagg_error* err) {
  return guarded(err, [&] {
    dpagg::ParsedSpec ps = dpagg::parse_spec(spec ? spec : "");
    if (canonical && canonical_len > 0)
      std::snprintf(canonical, canonical_len, "%s", ps.canonical.c_str());
  });
}

int dpagg_calibrate(const char* spec, double epsilon, double delta, double sensitivity,
                    dpagg_calibration* out, dpagg_error* err) {
  return guarded(err, [&] {
    *out = dpagg::calibrate(spec ? spec : "", dpagg::PrivacyRequest{epsilon, delta, sensitivity});
  });
}

int dpagg_calibrate_ex(const char* spec, double epsilon, double delta, double sensitivity,
                       int integer_valued, dpagg_calibration* out, dpagg_error* err) {
  return guarded(err, [&] {
    *out = dpagg::calibrate(spec ? spec : "",
                            dpagg::PrivacyRequest{epsilon, delta, sensitivity, integer_valued != 0});
  });
}

namespace {
dpagg::PrivacyRequest from_c(const dpagg_request& r) {
  dpagg::PrivacyRequest req{r.epsilon, r.delta, r.sensitivity, r.integer_valued != 0};
  req.dimension = r.dimension;
  req.vector = r.vector != 0;
  req.objective = r.objective == DPAGG_OBJECTIVE_L1 ? dpagg::Objective::kL1 : dpagg::Objective::kL2;
  req.zcdp_accounting = r.accounting == 1;
  return req;
}
}  // namespace

int dpagg_calibrate_for_release(const char* spec, const dpagg_request* req, dpagg_calibration* out,
                                dpagg_error* err) {
  return guarded(err, [&] { *out = dpagg::calibrate_for_release(spec ? spec : "", from_c(*req)); });
}

int dpagg_check_for_release(const char* spec, const dpagg_request* req, dpagg_error* err) {
  return guarded(err, [&] { dpagg::check_for_release(spec ? spec : "", from_c(*req)); });
}

int dpagg_check(const char* spec, double epsilon, double delta, double sensitivity,
                int integer_valued, dpagg_error* err) {
  return guarded(err, [&] {
    dpagg::check(spec ? spec : "",
                 dpagg::PrivacyRequest{epsilon, delta, sensitivity, integer_valued != 0});
  });
}

int dpagg_describe(const dpagg_calibration* cal, char* buf, size_t buflen, dpagg_error* err) {
  return guarded(err, [&] {
    const dpagg::Mechanism* m = dpagg::find_mechanism(cal->mechanism);
    if (m == nullptr) throw dpagg::Error(DPAGG_INTERNAL, "calibration names no known mechanism");
    const std::vector<std::string> names = m->param_names();
    // "K": the parameter of that name (the multi-Gaussian's modality), else 0.
    int modality = 0;
    for (int i = 0; i < cal->nparams && i < DPAGG_MAX_PARAMS && i < static_cast<int>(names.size()); ++i)
      if (names[static_cast<size_t>(i)] == "K") modality = static_cast<int>(cal->params[i]);
    std::ostringstream js;
    js << "{\"mechanism\": " << json_string(cal->spec)
       << ", \"guarantee\": " << json_string(cal->delta == 0 ? "epsilon-DP" : "(epsilon, delta)-DP")
       << ", \"epsilon\": " << json_number(cal->epsilon)
       << ", \"delta\": " << json_number(cal->delta)
       << ", \"sensitivity\": " << json_number(cal->sensitivity)
       << ", \"K\": " << modality
       << ", \"integer_valued\": " << (cal->integer_valued ? "true" : "false")
       << ", \"parameters\": {";
    for (int i = 0; i < cal->nparams && i < DPAGG_MAX_PARAMS; ++i) {
      if (i) js << ", ";
      js << json_string(i < static_cast<int>(names.size()) ? names[static_cast<size_t>(i)]
                                                           : "p" + std::to_string(i))
         << ": " << json_number(cal->params[i]);
    }
    js << "}, \"l1\": " << json_number(cal->l1) << ", \"l2\": " << json_number(cal->l2)
       << ", \"rho\": " << json_number(m->zcdp_rho(*cal))
       << ", \"delta_certified\": " << json_number(cal->delta_bound)
       << ", \"release_grid\": " << json_number(dpagg::release_grid(*cal));
    if (std::strcmp(cal->requested, cal->spec) != 0)
      js << ", \"requested\": " << json_string(cal->requested);
    if (std::strncmp(cal->requested, "auto", 4) == 0) {
      js << ", \"candidates\": [";
      dpagg::PrivacyRequest req{cal->epsilon, cal->delta, cal->sensitivity, cal->integer_valued != 0};
      req.dimension = cal->dimension;
      req.vector = cal->vector != 0;
      auto cands = dpagg::auto_candidates(req, std::strstr(cal->requested, "objective=l1") != nullptr);
      for (size_t i = 0; i < cands.size(); ++i) {
        if (i) js << ", ";
        js << "{\"mechanism\": " << json_string(cands[i].spec)
           << ", \"l1\": " << json_number(cands[i].l1) << ", \"l2\": " << json_number(cands[i].l2)
           << ", \"scale\": " << json_number(cands[i].scale) << "}";
      }
      js << "]";
    }
    js << "}";
    std::snprintf(buf, buflen, "%s", js.str().c_str());
  });
}

int dpagg_noise_halfwidth(const dpagg_calibration* cal, double confidence, double* out,
                          dpagg_error* err) {
  return guarded(err, [&] { *out = dpagg::release_halfwidth(*cal, confidence); });
}

double dpagg_zcdp_rho(const dpagg_calibration* cal) {
  double rho = std::numeric_limits<double>::quiet_NaN();
  guarded(nullptr, [&] {
    if (const dpagg::Mechanism* m = dpagg::find_mechanism(cal->mechanism)) rho = m->zcdp_rho(*cal);
  });
  return rho;
}

double dpagg_charged_delta(const dpagg_calibration* cal, double delta) {
  // Only an exact 0 certifies a pure mechanism; anything else (a positive bound, a NaN) charges
  // the delta asked for, which the certificate's bound never exceeds.
  return cal != nullptr && cal->delta_bound == 0.0 ? 0.0 : delta;
}

int dpagg_release(const dpagg_calibration* cal, __int128 quanta, double quantum, double* out,
                  dpagg_error* err) {
  return guarded(err, [&] {
    dpagg::SecureRandom rng;
    *out = dpagg::release(*cal, quanta, quantum, rng);
  });
}

int dpagg_release_plan_init(const dpagg_calibration* cal, double quantum, dpagg_release_plan* plan,
                            dpagg_error* err) {
  return guarded(err, [&] { *plan = dpagg::release_plan(*cal, quantum); });
}

int dpagg_release_planned(const dpagg_release_plan* plan, __int128 quanta, double* out,
                          dpagg_error* err) {
  return guarded(err, [&] {
    dpagg::SecureRandom rng;
    *out = dpagg::release_planned(*plan, quanta, rng);
  });
}

__int128 dpagg_release_max_quanta(const dpagg_release_plan* plan) {
  return dpagg::release_max_quanta(*plan);
}

void dpagg_set_interrupt_check(int (*should_stop)(void)) { g_should_stop = should_stop; }

int dpagg_release_vector(const dpagg_calibration* cal, const __int128* quanta, double quantum,
                         double* out, dpagg_error* err) {
  return guarded(err, [&] {
    dpagg::SecureRandom rng;
    dpagg::release_vector(*cal, quanta, quantum, rng, out);
  });
}

int dpagg_secure_bytes(void* buf, size_t n, dpagg_error* err) {
  return guarded(err, [&] { dpagg::secure_bytes(buf, n); });
}

int dpagg_secure_uniform(double* out, dpagg_error* err) { return dpagg_secure_uniforms(out, 1, err); }

int dpagg_secure_uniforms(double* out, size_t n, dpagg_error* err) {
  return guarded(err, [&] {
    dpagg::SecureRandom rng;
    for (size_t i = 0; i < n; ++i) out[i] = rng.uniform53();
  });
}

}  // extern "C"
