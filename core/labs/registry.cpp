#include "gateway_sim/gateway_lab.h"
#include "labs/labs.h"

namespace taillab {

const std::vector<std::unique_ptr<Lab>>& allLabs() {
    static const std::vector<std::unique_ptr<Lab>> labs = [] {
        std::vector<std::unique_ptr<Lab>> v;
        // Teaching order: why the tail matters (fan-out), how to read and measure it (averaging
        // percentiles, coordinated omission), the remedies and where they stop working (hedging
        // on idle, then loaded replicas; power of d choices; routing across regions, and failing
        // over without a cliff), and the whole path at last.
        v.push_back(makeFanoutLab());
        v.push_back(makeAveragingPercentilesLab());
        v.push_back(makeCoordinatedOmissionLab());
        v.push_back(makeHedgeIdleLab());
        v.push_back(makeHedgeLoadedLab());
        v.push_back(makePowerOfDLab());
        v.push_back(makeRegionRouterLab());
        v.push_back(gateway::makeGatewayLab());
        return v;
    }();
    return labs;
}

const Lab* findLab(const std::string& id) {
    for (const auto& l : allLabs())
        if (l->id() == id) return l.get();
    return nullptr;
}

}  // namespace taillab
