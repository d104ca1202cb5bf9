// The live gateway for the tests: `serve`'s GatewayServer on its own loop thread, in front of the
// emulated fleet (on another loop thread) or of upstream URLs the test gives.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "live/fleet_server.h"
#include "live/gateway_server.h"
#include "scenario/scenario.h"

namespace taillab::test {

struct GatewayRig {
    // Starts the scenario's emulated fleet; its NAME=URL upstream arguments.
    std::vector<std::string> startFleet(const Scenario& s) {
        fleet = std::make_unique<live::FleetServer>(fleetLoop, s);
        fleetLoop.start();
        fleet->start();
        std::vector<std::string> args;
        for (const auto& [name, url] : fleet->engineUrls()) args.push_back(name + "=" + url);
        return args;
    }
    // Starts the gateway in front of `upstreams` (NAME=URL, one per engine), with the scenario's
    // timeline and, when asked, its admin requests; `key` is its first key.
    void startGateway(const Scenario& s, const std::vector<std::string>& upstreams, live::HttpServerLimits limits = {},
                      bool admin = false) {
        setup = live::gatewaySetup(s);
        gateway = std::make_unique<live::GatewayServer>(gatewayLoop, live::HostPort{"127.0.0.1", 0}, setup,
                                                        live::upstreamUrls(setup.config, upstreams), s.seed, limits);
        if (admin) gateway->enableAdmin();
        gatewayLoop.start();
        gateway->start();
        key = setup.config.keys[0].key;
    }
    void stop() {
        if (gateway) gateway->stop();
        if (fleet) fleet->stop();
        gatewayLoop.stop();
        fleetLoop.stop();
    }

    live::Loop fleetLoop, gatewayLoop;
    std::unique_ptr<live::FleetServer> fleet;
    live::GatewaySetup setup;
    std::unique_ptr<live::GatewayServer> gateway;
    std::string key;
};

}  // namespace taillab::test
