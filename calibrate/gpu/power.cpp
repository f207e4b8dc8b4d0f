#include "calibrate/gpu/power.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>

namespace choreo::gpucal {

// The NVML entry points used, as declared in NVIDIA's nvml.h (return codes are ints, 0 = success).
struct PowerMeter::Nvml {
    using Device = struct nvmlDevice_st*;
    void* library = nullptr;
    int (*init)() = nullptr;
    int (*shutdown)() = nullptr;
    int (*byBusId)(const char*, Device*) = nullptr;
    int (*powerUsage)(Device, unsigned int*) = nullptr; // milliwatts
    int (*driverVersion)(char*, unsigned int) = nullptr;
    int (*clockInfo)(Device, int, unsigned int*) = nullptr; // nvmlClockType_t 1 = NVML_CLOCK_SM, MHz
    Device device = nullptr;

    ~Nvml() {
        if (shutdown)
            shutdown();
        if (library)
            dlclose(library);
    }
};

PowerMeter::PowerMeter(std::string pciBusId)
    : bus_(std::move(pciBusId)) {
    auto nvml = std::make_unique<Nvml>();
    nvml->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml->library) {
        auto sym = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(nvml->library, name));
            return fn != nullptr;
        };
        if (sym(nvml->init, "nvmlInit_v2") && sym(nvml->byBusId, "nvmlDeviceGetHandleByPciBusId_v2") &&
            sym(nvml->powerUsage, "nvmlDeviceGetPowerUsage") && nvml->init() == 0) {
            sym(nvml->shutdown, "nvmlShutdown");
            sym(nvml->driverVersion, "nvmlSystemGetDriverVersion");
            sym(nvml->clockInfo, "nvmlDeviceGetClockInfo");
            unsigned int mW = 0;
            if (nvml->byBusId(bus_.c_str(), &nvml->device) == 0 && nvml->powerUsage(nvml->device, &mW) == 0) {
                nvml_ = std::move(nvml);
                method_ = "nvml";
                smiWorks_ = sample_smi().has_value();
                return;
            }
        }
    }
    nvml.reset();
    if (sample_smi())
        method_ = "nvidia-smi";
}

namespace {

std::optional<double> mean(const std::vector<double>& values) {
    if (values.empty())
        return std::nullopt;
    double sum = 0;
    for (double v : values)
        sum += v;
    return sum / static_cast<double>(values.size());
}

} // namespace

PowerMeter::~PowerMeter() {
    if (running_)
        stop();
}

std::string PowerMeter::driverVersion() const {
    if (!nvml_ || !nvml_->driverVersion)
        return {};
    std::array<char, 96> buffer{};
    return nvml_->driverVersion(buffer.data(), buffer.size()) == 0 ? std::string(buffer.data())
                                                                   : std::string();
}

std::optional<double> PowerMeter::sample_smi() {
    // -i takes the PCI bus id; power.draw in W, or "[N/A]" where the board does not report it.
    const std::string command =
        "nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits -i " + bus_ + " 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe)
        return std::nullopt;
    std::array<char, 128> line{};
    const bool got = std::fgets(line.data(), line.size(), pipe) != nullptr;
    const int rc = pclose(pipe);
    if (!got || rc != 0)
        return std::nullopt;
    char* end = nullptr;
    const double watts = std::strtod(line.data(), &end);
    if (end == line.data() || !(watts > 0))
        return std::nullopt;
    return watts;
}

std::optional<double> PowerMeter::smClockMHz() {
    constexpr int kClockSm = 1;
    unsigned int mhz = 0;
    if (!nvml_ || !nvml_->clockInfo || nvml_->clockInfo(nvml_->device, kClockSm, &mhz) != 0 || mhz == 0)
        return std::nullopt;
    return static_cast<double>(mhz);
}

std::optional<double> PowerMeter::sample() {
    if (method_ == "nvml") {
        unsigned int mW = 0;
        if (nvml_->powerUsage(nvml_->device, &mW) != 0)
            return std::nullopt;
        return mW / 1000.0;
    }
    if (method_ == "nvidia-smi")
        return sample_smi();
    return std::nullopt;
}

void PowerMeter::start(double settle_s) {
    {
        std::lock_guard lock(mutex_);
        readings_.clear();
        checkReadings_.clear();
    }
    samples_ = 0;
    checkMean_.reset();
    if (method_ == "none")
        return;
    running_ = true;
    // Readings every `period` until stop(), those after the settling time kept in `into`.
    auto sampler = [this, settle_s](std::optional<double> (PowerMeter::*read)(), std::vector<double>& into,
                                    std::chrono::milliseconds period) {
        return std::thread([this, settle_s, read, &into, period] {
            const auto begin = std::chrono::steady_clock::now();
            while (running_) {
                const auto reading = (this->*read)();
                const double since =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
                if (reading && since >= settle_s) {
                    std::lock_guard lock(mutex_);
                    into.push_back(*reading);
                }
                std::this_thread::sleep_for(period);
            }
        });
    };
    if (method_ == "nvml" && smiWorks_)
        checkThread_ = sampler(&PowerMeter::sample_smi, checkReadings_, std::chrono::milliseconds(250));
    thread_ =
        sampler(&PowerMeter::sample, readings_, std::chrono::milliseconds(method_ == "nvml" ? 20 : 200));
}

std::optional<double> PowerMeter::stop() {
    if (running_) {
        running_ = false;
        thread_.join();
        if (checkThread_.joinable())
            checkThread_.join();
    }
    std::lock_guard lock(mutex_);
    samples_ = static_cast<int>(readings_.size());
    checkMean_ = mean(checkReadings_);
    return mean(readings_);
}

} // namespace choreo::gpucal
