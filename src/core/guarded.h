// guarded.h — how every C entry point of the core keeps C++ exceptions inside: run the body,
// turn a dpagg::Error into its status, message and hint, and anything else into DPAGG_INTERNAL.
// Nothing thrown ever crosses into the glue (dpagg_core.h).
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "dpagg_core.h"
#include "errors.h"

namespace dpagg {

inline void set_error(dpagg_error* err, int status, const char* message, const char* hint) {
  if (err == nullptr) return;
  err->status = status;
  std::snprintf(err->message, sizeof(err->message), "%s", message);
  std::snprintf(err->hint, sizeof(err->hint), "%s", hint);
}

template <typename F>
int guarded(dpagg_error* err, F&& body) {
  try {
    body();
    if (err) err->status = DPAGG_OK;
    return DPAGG_OK;
  } catch (const Error& e) {
    set_error(err, e.status(), e.what(), e.hint().c_str());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_error(err, DPAGG_INTERNAL, "dpagg: out of memory", "");
  } catch (const std::exception& e) {
    set_error(err, DPAGG_INTERNAL, (std::string("dpagg internal error: ") + e.what()).c_str(), "");
  } catch (...) {
    set_error(err, DPAGG_INTERNAL, "dpagg internal error: unknown exception", "");
  }
  return DPAGG_INTERNAL;
}

}  // namespace dpagg
