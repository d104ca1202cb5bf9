#include "labs/lab.h"

namespace taillab {

LabResult Lab::run(const Params& params, const Timeline& timeline, std::uint64_t seed,
                   RunControl& control, const PartialSink& partial) const {
    if (!timeline.empty())
        throw TimelineError("/timeline", "lab '" + id() + "' applies no timeline");
    return run(params, seed, control, partial);
}

}  // namespace taillab
