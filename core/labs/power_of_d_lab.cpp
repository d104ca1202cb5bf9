// PLACEHOLDER: replaced by the real lab. Must not be committed.
#include "labs/labs.h"

namespace taillab {
namespace {

class PowerOfDLab final : public Lab {
public:
    std::string id() const override { return "power_of_d"; }
    std::string title() const override { return "Power of d choices"; }
    std::string summary() const override { return "Power of d choices"; }
    std::string explanation() const override { return "Power of d choices"; }
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

std::unique_ptr<Lab> makePowerOfDLab() { return std::make_unique<PowerOfDLab>(); }

}  // namespace taillab
