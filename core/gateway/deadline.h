// Deadlines that only shrink (seed 000): every request carries an absolute deadline set once at
// accept: accept + 600 ms, minus a margin kept for serializing and writing the response. Every
// later stage reads what remains and does only what fits:
//   - an engine is called only if at least minUsefulMs remains after keeping the merge reserve
//     (work that cannot finish is not started), and the call's own timeout is what remains;
//   - the request's deadline timer fires at deadline - merge reserve, leaving merge its slice;
//   - a coalesced waiter detaches from a slow leader `detach_reserve` before its deadline;
//   - a passed deadline is a 503 with Retry-After, never a 200 with an empty list.
#pragma once

#include "base/time.h"
#include "gateway/config.h"

namespace taillab::gateway {

struct Deadline {
    Duration total{}, margin{}, mergeReserve{}, minUseful{}, detachReserve{};

    static Deadline from(const GatewayConfig& c) {
        return Deadline{fromMs(c.deadline_ms), fromMs(c.margin_ms), fromMs(c.merge_reserve_ms),
                        fromMs(c.min_useful_ms), fromMs(c.detach_reserve_ms)};
    }
    // The deadline every stage works to.
    Time of(Time accepted) const { return accepted + total - margin; }
    // The promise to the client: no answer later than this.
    Time hard(Time accepted) const { return accepted + total; }
    // When the engines must have answered, to leave merge its slice.
    Time callCutoff(Time deadline) const { return deadline - mergeReserve; }
    // What a call starting at `at` may take.
    Duration callBudget(Time deadline, Time at) const { return callCutoff(deadline) - at; }
    // Whether a call starting at `at` is worth making.
    bool worthCalling(Time deadline, Time at) const { return callBudget(deadline, at) >= minUseful; }
    Time detachAt(Time deadline) const { return deadline - detachReserve; }
};

}  // namespace taillab::gateway
