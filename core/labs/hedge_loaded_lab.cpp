// PLACEHOLDER: replaced by the real lab. Must not be committed.
#include "labs/labs.h"

namespace taillab {
namespace {

class HedgeLoadedLab final : public Lab {
public:
    std::string id() const override { return "hedge_loaded"; }
    std::string title() const override { return "Hedging on loaded FIFO replicas"; }
    std::string summary() const override { return "Hedging on loaded FIFO replicas"; }
    std::string explanation() const override { return "Hedging on loaded FIFO replicas"; }
    std::vector<KnobSpec> knobs() const override {
        return {KnobSpec::integer("requests", "Requests", "requests", 1000, 10000000, 100000,
                                  "How many requests to simulate")};
    }
    std::string mainKnob() const override { return "requests"; }
    LabResult run(const Params& params, std::uint64_t seed, RunControl&,
                  const PartialSink&) const override {
        LabResult r;
        r.lab = id();
        r.seed = seed;
        r.parameters = params.toJson();
        return r;
    }
};

}  // namespace

std::unique_ptr<Lab> makeHedgeLoadedLab() { return std::make_unique<HedgeLoadedLab>(); }

}  // namespace taillab
