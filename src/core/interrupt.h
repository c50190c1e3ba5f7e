// interrupt.h — long computations in the core poll a host-provided "should I stop?" function.
// The PostgreSQL glue installs one that reads InterruptPending (it never long-jumps); when it says
// yes the core throws Error(DPAGG_CANCELED), and the glue lets PostgreSQL process the interrupt
// once it is back in C.
#pragma once

namespace dpagg {
void check_interrupt();
}  // namespace dpagg
