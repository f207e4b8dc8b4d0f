#pragma once
// Board power sampling: NVML loaded at run time (dlopen libnvidia-ml.so.1; the toolkit has no nvml.h, so
// the few functions are declared here), else `nvidia-smi`, else nothing.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace choreo::gpucal {

class PowerMeter {
public:
    // For the GPU at this PCI bus id ("0000:3B:00.0", from cudaDeviceGetPCIBusId).
    explicit PowerMeter(std::string pciBusId);
    ~PowerMeter();
    PowerMeter(const PowerMeter&) = delete;
    PowerMeter& operator=(const PowerMeter&) = delete;

    // "nvml", "nvidia-smi" or "none".
    [[nodiscard]] const std::string& method() const { return method_; }
    // The driver version NVML reports ("580.65.06"), or "".
    [[nodiscard]] std::string driverVersion() const;
    // One reading in watts, or nullopt.
    std::optional<double> sample();
    // The SM clock now (MHz), through NVML only; nullopt without it.
    std::optional<double> smClockMHz();

    // Samples in the background until stop(); returns the mean of readings taken after `settle_s`
    // (power readings are averaged over a window by the driver), or nullopt when there were none.
    // With NVML, `nvidia-smi` is also read over the same interval (every 250 ms, on its own thread), as an
    // independent check of the figure: checkWatts() after stop().
    void start(double settle_s);
    std::optional<double> stop();
    [[nodiscard]] int samples() const { return samples_; }
    // The mean of the `nvidia-smi` readings of the last start()..stop(), when NVML was the method and
    // nvidia-smi answered.
    [[nodiscard]] std::optional<double> checkWatts() const { return checkMean_; }

private:
    std::optional<double> sample_smi();

    struct Nvml;
    std::unique_ptr<Nvml> nvml_;
    std::string bus_;
    std::string method_ = "none";
    std::thread thread_, checkThread_;
    std::atomic<bool> running_{false};
    std::mutex mutex_;
    std::vector<double> readings_, checkReadings_;
    int samples_ = 0;
    std::optional<double> checkMean_;
    bool smiWorks_ = false;
};

} // namespace choreo::gpucal
