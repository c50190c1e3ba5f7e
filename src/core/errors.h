// errors.h — the one exception type of the core.  It carries the class of the error (which the
// PostgreSQL glue maps to a SQLSTATE), a message and a hint naming the valid range.
#pragma once

#include <stdexcept>
#include <string>

#include "dpagg_core.h"

namespace dpagg {

class Error : public std::runtime_error {
 public:
  Error(dpagg_status status, std::string message, std::string hint = "")
      : std::runtime_error(message), status_(status), hint_(std::move(hint)) {}
  dpagg_status status() const { return status_; }
  const std::string& hint() const { return hint_; }

 private:
  dpagg_status status_;
  std::string hint_;
};

// User input quoted in an error message: at most 40 bytes (cut at a UTF-8 character boundary)
// and "..." after a cut, so that an oversized argument is not copied into the error and the
// server log whole.
inline std::string quoted(const std::string& s) {
  constexpr std::size_t kMax = 40;
  if (s.size() <= kMax) return "\"" + s + "\"";
  std::size_t n = kMax;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return "\"" + s.substr(0, n) + "...\"";
}

[[noreturn]] inline void invalid(std::string message, std::string hint) {
  throw Error(DPAGG_INVALID_PARAMETER, std::move(message), std::move(hint));
}

}  // namespace dpagg
