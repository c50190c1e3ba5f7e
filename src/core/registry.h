// registry.h — the list of mechanisms and the parser of mechanism specs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mechanism.h"

namespace dpagg {

// Every mechanism, in the order `auto` tries them.
const std::vector<const Mechanism*>& all_mechanisms();
// Those that serve scalar releases, in the order dp_mechanisms() lists them.
const std::vector<const Mechanism*>& listed_mechanisms();

// The registered mechanism whose id() is `id` (a dpagg_mechanism_id, e.g. a calibration's
// mechanism), or nullptr if there is none.
const Mechanism* find_mechanism(int32_t id);

struct ParsedSpec {
  const Mechanism* mechanism;
  Options options;
  std::string canonical;  // name, or name(k=v,...) with keys sorted
};

// Parses "name" or "name(key=value, ...)"; case-insensitive names, surrounding blanks ignored.
// Names are those of scalar releases, or with `vector` the vector_name()s of the mechanisms that
// serve vector releases.  Throws dpagg::Error(DPAGG_INVALID_PARAMETER) for unknown names or options.
ParsedSpec parse_spec(const std::string& spec, bool vector = false);

// Validates the request (ranges of epsilon, delta, sensitivity) for the given mechanism.
void validate_request(const Mechanism& m, const PrivacyRequest& req);

// parse + validate, without calibrating (cheap).
void check(const std::string& spec, const PrivacyRequest& req);

// parse + validate + calibrate + certify (delta_bound <= delta is re-checked here).  The request's
// objective, if set, is that of a mechanism with an objective option whose spec names none.
dpagg_calibration calibrate(const std::string& spec, const PrivacyRequest& req);

// The request to calibrate for so that snapping the answer to the release grid stays private:
// the sensitivity with the allowance of release_sensitivity (release.h), except for
// integer-valued queries, whose answers the grid never moves.
PrivacyRequest for_release(PrivacyRequest req);
// calibrate / check of for_release(req): the calibration a release uses.
dpagg_calibration calibrate_for_release(const std::string& spec, const PrivacyRequest& req);
void check_for_release(const std::string& spec, const PrivacyRequest& req);

}  // namespace dpagg
