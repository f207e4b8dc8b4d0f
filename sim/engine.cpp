#include "sim/engine.h"

#include <simgrid/plugins/energy.h>

#include <array>
#include <string>
#include <xbt/log.h>

namespace choreo::sim {

std::unique_ptr<simgrid::s4u::Engine> makeEngine() {
    static bool configured = false;
    xbt_log_control_set("root.thresh:critical");
    std::array<std::string, 6> args = {"choreo-sim",
                                       "--cfg=network/model:CM02",
                                       "--cfg=network/crosstraffic:0",
                                       "--cfg=contexts/stack-size:64",
                                       "--log=root.thresh:critical",
                                       "--cfg=debug/clean-atexit:0"};
    std::array<char*, 6> argv{};
    for (std::size_t i = 0; i < args.size(); ++i)
        argv[i] = args[i].data();
    int argc = static_cast<int>(args.size());
    auto engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
    if (!configured) { // plugins hook process-wide signals: once per process
        sg_host_energy_plugin_init();
        configured = true;
    }
    return engine;
}

} // namespace choreo::sim
