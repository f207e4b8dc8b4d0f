// A stand-in for `choreo-sim worker` in the ui tests: speaks (or deliberately breaks) the worker
// protocol according to its first argument, without SimGrid and in milliseconds.
//
//   fakeworker ok         hello, three progress lines, a result; exit 0
//   fakeworker error      hello, an invalid-input error with a diagnostic; exit 2
//   fakeworker crash      hello, progress, abort()
//   fakeworker silent     hello, then exit 3 without a result or an error
//   fakeworker hang       hello, progress, then sleeps until killed
//   fakeworker mismatch   a hello of protocol choreo-worker/0
//   fakeworker garbage    a line that is not JSON
//   fakeworker scenario   behaves by the request's scenario name: "sleep=N" waits N ms first,
//                         "fail" reports a simulation failure (exit 3), "hang" never answers
//   fakeworker worker ... the same, under the real worker's command line (for `report` tests)
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QString>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

using namespace Qt::StringLiterals;

namespace {

void send(const QJsonObject& message) {
    std::cout << QJsonDocument(message).toJson(QJsonDocument::Compact).toStdString() << std::endl;
}

void hello(const QString& protocol = u"choreo-worker/1"_s) {
    send({{u"type"_s, u"hello"_s},
          {u"protocol"_s, protocol},
          {u"version"_s, u"0.0-fake"_s},
          {u"pid"_s, 4242}});
}

void progress(double fraction, const QString& stage) {
    send({{u"type"_s, u"progress"_s}, {u"fraction"_s, fraction}, {u"stage"_s, stage}});
}

QJsonObject readRequest() {
    const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return QJsonDocument::fromJson(QByteArray::fromStdString(input)).object();
}

// A result that resultFromJson() accepts; throughput grows linearly with the devices (100 % scaling), and
// so does power: two bins over the 2 s step, 700 W then 100 W per device, cooling a tenth of that.
QJsonObject result(const QString& scenario, qint64 devices) {
    const double perDevice = 1000.0;
    const auto n = static_cast<double>(devices);
    return {
        {u"scenario"_s, scenario},
        {u"device"_s, u"h100-sxm"_s},
        {u"devices"_s, devices},
        {u"fidelity"_s, u"flow"_s},
        {u"calibration"_s, u"none (fake)"_s},
        {u"step_time_s"_s, 2.0},
        {u"tokens_per_s"_s, perDevice * static_cast<double>(devices)},
        {u"mfu"_s, 0.4},
        {u"achieved_tflops_per_device"_s, 400.0},
        {u"model_flops_per_step"_s, 1e18},
        {u"steps"_s, 1000.0},
        {u"time_to_train_s"_s, 2000.0},
        {u"energy_kWh"_s, 100.0},
        {u"average_power_kW"_s, 180.0},
        {u"it_power_kW"_s, 150.0},
        {u"cost_usd"_s, 5000.0},
        {u"cost_breakdown_usd"_s,
         QJsonObject{{u"mode"_s, u"rent"_s}, {u"hardware"_s, 5000.0}, {u"electricity"_s, 0.0}}},
        {u"memory_per_device_GB"_s, 60.0},
        {u"memory_breakdown_GB"_s, QJsonObject{{u"weights"_s, 10.0},
                                               {u"gradients"_s, 10.0},
                                               {u"optimizer"_s, 20.0},
                                               {u"activations"_s, 15.0},
                                               {u"buffers"_s, 5.0},
                                               {u"stage"_s, 0}}},
        {u"breakdown_s"_s,
         QJsonObject{{u"compute"_s, 1.5}, {u"exposed_communication"_s, 0.3}, {u"pipeline_bubble"_s, 0.2}}},
        {u"simulated_activities"_s, 12345},
        {u"pools"_s, QJsonArray{QJsonObject{{u"name"_s, u"gpus"_s},
                                            {u"device"_s, u"h100-sxm"_s},
                                            {u"count"_s, devices},
                                            {u"stages"_s, QJsonArray{u"train"_s}},
                                            {u"utilisation"_s, 0.75},
                                            {u"energy_kWh"_s, 100.0},
                                            {u"cost_usd"_s, 5000.0}}}},
        {u"bottleneck"_s,
         QJsonObject{{u"stage"_s, u"train"_s}, {u"pool"_s, u"gpus"_s}, {u"step_time_without_s"_s, 0.0}}},
        {u"power_trace"_s, QJsonObject{{u"time_s"_s, QJsonArray{0.0, 0.5, 2.0}},
                                       {u"accelerators_W"_s, QJsonArray{700.0 * n, 100.0 * n}},
                                       {u"cpus_W"_s, QJsonArray{0.0, 0.0}},
                                       {u"network_W"_s, QJsonArray{0.0, 0.0}},
                                       {u"cooling_W"_s, QJsonArray{70.0 * n, 10.0 * n}}}},
    };
}

int error(const QString& code, int exitCode, const QString& message, const QString& path,
          const QString& detail) {
    send({{u"type"_s, u"error"_s},
          {u"code"_s, code},
          {u"exit_code"_s, exitCode},
          {u"message"_s, message},
          {u"diagnostics"_s, QJsonArray{QJsonObject{{u"path"_s, path}, {u"message"_s, detail}}}}});
    return exitCode;
}

[[noreturn]] void hang() {
    for (;;)
        std::this_thread::sleep_for(std::chrono::hours(1));
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "ok";
    std::cerr << "fake worker: mode " << mode << std::endl;
    if (mode == "mismatch") {
        hello(u"choreo-worker/0"_s);
        return 0;
    }
    if (mode == "garbage") {
        std::cout << "Simulation starting (this is not JSON)" << std::endl;
        return 0;
    }
    hello();
    const QJsonObject request = readRequest();
    const QJsonObject scenario = request.value(u"scenario"_s).toObject();
    const QString name = scenario.value(u"name"_s).toString();
    const QJsonArray pools = scenario.value(u"cluster"_s).toObject().value(u"pools"_s).toArray();
    const qint64 devices = pools.isEmpty() ? 8 : pools.first().toObject().value(u"count"_s).toInteger(8);

    if (mode == "ok") {
        progress(0.25, u"building platform"_s);
        progress(0.5, u"simulating"_s);
        progress(1.0, u"done"_s);
        send({{u"type"_s, u"result"_s}, {u"result"_s, result(name, devices)}});
        return 0;
    }
    if (mode == "error")
        return error(u"invalid-input"_s, 2, u"the scenario is invalid"_s, u"workload.parallel.tp"_s,
                     u"4 does not divide heads=6"_s);
    if (mode == "crash") {
        progress(0.1, u"simulating"_s);
        std::abort();
    }
    if (mode == "silent")
        return 3;
    if (mode == "hang") {
        progress(0.1, u"simulating"_s);
        hang();
    }
    if (mode == "scenario" || mode == "worker") {
        const auto sleep = QRegularExpression(u"sleep=(\\d+)"_s).match(name);
        if (sleep.hasMatch())
            std::this_thread::sleep_for(std::chrono::milliseconds(sleep.captured(1).toInt()));
        if (name.contains(u"hang"_s))
            hang();
        if (name.contains(u"fail"_s))
            return error(u"simulation-failed"_s, 3,
                         u"memory: does not fit, 95 GB per device needed, 80 GB available"_s, u"memory"_s,
                         u"does not fit, 95 GB per device needed, 80 GB available"_s);
        progress(1.0, u"done"_s);
        send({{u"type"_s, u"result"_s}, {u"result"_s, result(name, devices)}});
        return 0;
    }
    std::cerr << "fake worker: unknown mode " << mode << std::endl;
    return 1;
}
