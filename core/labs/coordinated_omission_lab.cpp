// PLACEHOLDER: replaced by the real lab. Must not be committed.
#include "labs/labs.h"

namespace taillab {
namespace {

class CoordinatedOmissionLab final : public Lab {
public:
    std::string id() const override { return "coordinated_omission"; }
    std::string title() const override { return "Coordinated omission"; }
    std::string summary() const override { return "Coordinated omission"; }
    std::string explanation() const override { return "Coordinated omission"; }
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

std::unique_ptr<Lab> makeCoordinatedOmissionLab() { return std::make_unique<CoordinatedOmissionLab>(); }

}  // namespace taillab
