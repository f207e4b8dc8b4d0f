// A board power limit (models/powerlimit.h): the clock law and its sources, the limited device a pool then
// runs (its compute slower, its busy power held, its peaks and memory rated as before), a calibration
// profile limited in turn, the scenario file, and limits the device cannot take.
#include "models/calibration.h"
#include "models/powerlimit.h"
#include "models/profile.h"
#include "models/scenarioio.h"

#include <QTest>

#include <cmath>

#include "stagetesting.h"

using namespace choreo::models;
using choreo::test::catalog;
using choreo::test::hasError;
using choreo::test::kAssets;

namespace {

const std::filesystem::path& kDefault = choreo::test::kDefaultScenario;

const Device& device(const std::string& id) {
    const Device* d = catalog().find(id);
    if (!d)
        qFatal("no %s in the catalog", id.c_str());
    return *d;
}

PowerLimitEffect effectOrFail(const Device& d, double limit_W) {
    Diagnostics errors;
    const auto e = powerLimitEffect(d, limit_W, "limit", errors);
    if (!e)
        qFatal("%s", joinDiagnostics(errors).c_str());
    return *e;
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

} // namespace

class TstPowerLimit : public QObject {
    Q_OBJECT

private slots:
    // Dynamic power grows as clock^k: the H100 (idle 84 W, busy 700 W, k = 2 by default) at 392 W keeps half
    // its dynamic power, so sqrt(1/2) of its clock; with no memory-bound power given, memory-bound work
    // slows alike.
    void clockFollowsTheDynamicPower() {
        const auto e = effectOrFail(device("h100-sxm"), 392.0);
        QVERIFY(near(e.clock_fraction, std::sqrt(0.5)));
        QVERIFY(near(e.memory_fraction, std::sqrt(0.5)));
        QCOMPARE(e.exponent.value, kDefaultClockPowerExponent);
        QCOMPARE(e.exponent.source, std::string(kAssumedSource));
        QCOMPARE(e.busy_W, 700.0);
        // The A100 carries its own k, fitted to its measured clocks.
        QCOMPARE(effectOrFail(device("a100-sxm-80gb"), 300.0).exponent.source,
                 std::string("PERSEUS-A100-CLOCKS"));
    }

    // The H200's memory-bound work draws 556 W: a 600 W limit slows only its compute, a 400 W one both, the
    // memory-bound work less.
    void memoryBoundWorkSlowsOnlyUnderItsOwnPower() {
        const Device& h200 = device("h200-sxm");
        const auto mild = effectOrFail(h200, 600.0);
        QVERIFY(near(mild.clock_fraction, std::sqrt((600.0 - 126.0) / (700.0 - 126.0))));
        QCOMPARE(mild.memory_fraction, 1.0);
        const auto hard = effectOrFail(h200, 400.0);
        QVERIFY(near(hard.memory_fraction, std::sqrt((400.0 - 126.0) / (556.0 - 126.0))));
        QVERIFY(hard.clock_fraction < hard.memory_fraction);
    }

    // A limit at or above the busy power changes nothing, and the limited device is the device.
    void aLimitAboveBusyPowerChangesNothing() {
        const Device& h100 = device("h100-sxm");
        for (const double limit : {700.0, 800.0}) {
            const auto e = effectOrFail(h100, limit);
            QCOMPARE(e.clock_fraction, 1.0);
            QCOMPARE(e.memory_fraction, 1.0);
            const Device same = limitDevice(h100, e);
            QCOMPARE(same.tdp_W.value, 700.0);
            QCOMPARE(same.efficiency.gemm.value, h100.efficiency.gemm.value);
        }
    }

    // The limited device: compute efficiencies times the clock, busy power at the limit, peaks, memory
    // capacity and network as rated; each changed figure's note says why.
    void limitedDeviceIsSlowerAndCooler() {
        const Device& h100 = device("h100-sxm");
        const auto e = effectOrFail(h100, 500.0);
        const Device d = limitDevice(h100, e);
        QVERIFY(near(d.efficiency.gemm.value, h100.efficiency.gemm.value * e.clock_fraction));
        for (const auto& [precision, fraction] : h100.efficiency.gemm_by_precision)
            QVERIFY(
                near(d.efficiency.gemm_by_precision.at(precision).value, fraction.value * e.clock_fraction));
        QVERIFY(near(d.efficiency.attention.value, h100.efficiency.attention.value * e.clock_fraction));
        QVERIFY(near(d.efficiency.memory.value, h100.efficiency.memory.value * e.memory_fraction));
        QCOMPARE(d.tdp_W.value, 500.0);
        QCOMPARE(d.idle_W.value, h100.idle_W.value);
        QVERIFY(d.peak_tflops == h100.peak_tflops);
        QCOMPARE(d.memory_GB.value, h100.memory_GB.value);
        QCOMPARE(d.efficiency.network.value, h100.efficiency.network.value);
        QVERIFY(d.efficiency.gemm.note.find("500 W power limit") != std::string::npos);
        QVERIFY(d.tdp_W.note.find("500 W power limit") != std::string::npos);
    }

    // A resolved pool with a limit runs a copy; the rated device stays the catalog's.
    void poolRunsTheLimitedCopy() {
        const auto rs = choreo::test::resolveOrFail(kDefault, {"cluster.pools[0].power_limit_W=500"});
        const ResolvedPool& pool = rs.pools[rs.training_pool];
        QCOMPARE(pool.ratedDevice(), &device("h100-sxm"));
        QVERIFY(pool.device != pool.ratedDevice());
        QCOMPARE(pool.device->tdp_W.value, 500.0);
        QVERIFY(pool.power_limit);
        QCOMPARE(pool.power_limit->limit_W, 500.0);
        QCOMPARE(rs.device_copies.size(), std::size_t{1});
        const auto plain = choreo::test::resolveOrFail(kDefault);
        QCOMPARE(plain.pools[0].device, &device("h100-sxm"));
        QVERIFY(!plain.pools[0].power_limit);
    }

    // A calibration profile replaces the rated device; the limit then holds the calibrated one, from its
    // measured idle and busy power.
    void calibrationIsLimitedInTurn() {
        auto rs = choreo::test::resolveOrFail(
            kDefault, {"cluster.pools[0].device=h200-sxm", "cluster.pools[0].power_limit_W=500"});
        Diagnostics errors;
        const auto profile = loadProfileFile(kAssets / "calibration" / "nvidia-h200-2026-11-30.json", errors);
        QVERIFY2(profile, joinDiagnostics(errors).c_str());
        QVERIFY2(applyCalibrationProfile(rs, *profile, std::nullopt, errors),
                 joinDiagnostics(errors).c_str());
        const ResolvedPool& pool = rs.pools[0];
        const Device& calibrated = *pool.ratedDevice();
        QVERIFY(&calibrated != &device("h200-sxm"));
        QVERIFY(std::abs(calibrated.tdp_W.value - 692.63) < 0.01); // measured compute-bound power
        QCOMPARE(pool.device->tdp_W.value, 500.0);
        const double clock =
            std::sqrt((500.0 - calibrated.idle_W.value) / (calibrated.tdp_W.value - calibrated.idle_W.value));
        QVERIFY(near(pool.power_limit->clock_fraction, clock));
        QVERIFY(near(pool.device->efficiency.gemmAt(Precision::Bf16).value,
                     calibrated.efficiency.gemmAt(Precision::Bf16).value * clock));
    }

    // The scenario file keeps the limit.
    void scenarioFileKeepsTheLimit() {
        Diagnostics errors;
        auto s = choreo::test::loadWith(kDefault, {"cluster.pools[0].power_limit_W=550"}, errors);
        QVERIFY2(s, joinDiagnostics(errors).c_str());
        const auto again = parseScenario(serializeScenario(*s), errors);
        QVERIFY2(again, joinDiagnostics(errors).c_str());
        QCOMPARE(again->cluster.pools[0].power_limit_W, std::optional<double>(550.0));
        QVERIFY(serializeScenario(*choreo::test::loadWith(kDefault, {}, errors)).find("power_limit_W") ==
                std::string::npos);
    }

    // A limit the device cannot run under is refused by the pool's field, with the reason.
    void refusesWhatTheDeviceCannotTake() {
        Diagnostics errors;
        QVERIFY(!choreo::test::resolveWith(kDefault, {"cluster.pools[0].power_limit_W=80"}, errors));
        QVERIFY2(
            hasError(errors, "cluster.pools[0].power_limit_W", "at or below h100-sxm's idle power (84 W)"),
            joinDiagnostics(errors).c_str());
        errors.clear();
        QVERIFY(!choreo::test::resolveWith(kDefault, {"cluster.pools[0].power_limit_W=150"}, errors));
        QVERIFY2(hasError(errors, "cluster.pools[0].power_limit_W",
                          "below the lowest limit h100-sxm accepts, 200 W (NVIDIA-DGX-POWERLIMIT)"),
                 joinDiagnostics(errors).c_str());
        errors.clear();
        QVERIFY(!choreo::test::resolveWith(kDefault, {"cluster.pools[0].power_limit_W=-5"}, errors));
        QVERIFY2(hasError(errors, "cluster.pools[0].power_limit_W", "greater than 0"),
                 joinDiagnostics(errors).c_str());
    }
};

QTEST_APPLESS_MAIN(TstPowerLimit)
#include "tst_powerlimit.moc"
