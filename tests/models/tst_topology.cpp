// Topologies: hand-checked figures, the closed forms against the graph, and impossible networks.
#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/resolved.h"
#include "models/scenarioio.h"
#include "models/topology.h"

#include <QElapsedTimer>
#include <QTest>

#include <filesystem>
#include <functional>
#include <vector>

using namespace choreo::models;

namespace {

const Catalog& catalog() {
    static const Catalog c = [] {
        Diagnostics errors;
        auto loaded = Catalog::load(std::filesystem::path(CHOREO_TEST_ASSETS) / "catalog", errors);
        if (!loaded)
            qFatal("catalog: %s", joinDiagnostics(errors).c_str());
        return *loaded;
    }();
    return c;
}

Json defaultDoc() {
    std::string text, error;
    if (!readTextFile(std::filesystem::path(CHOREO_TEST_ASSETS) / "scenarios" / "default.json", text, error))
        qFatal("%s", error.c_str());
    return Json::parse(text);
}

// The default scenario (Llama-3 70B, tp 4, pp 4) on `devices` devices with data parallelism to match.
Json cluster(std::int64_t devices, const Json& topology, const char* device = "h100-sxm",
             std::int64_t perNode = 8) {
    Json d = defaultDoc();
    d["cluster"]["pools"][0]["device"] = device;
    d["cluster"]["pools"][0]["count"] = devices;
    d["cluster"]["pools"][0]["devices_per_node"] = perNode;
    d["cluster"]["network"]["topology"] = topology;
    auto& p = d["workload"]["parallel"];
    p["tp"] = std::min<std::int64_t>(4, perNode);
    p["dp"] = devices / (4 * p["tp"].get<std::int64_t>());
    d["workload"]["global_batch"] = 4 * p["dp"].get<std::int64_t>();
    d["workload"]["model"]["layers"] = 16;
    d["costs"]["rent_usd_per_device_hour"] = 2.5; // not every device has a catalog price
    return d;
}

// Parses and resolves; every diagnostic lands in `errors`.
std::optional<ResolvedScenario> resolveDoc(const Json& doc, Diagnostics& errors) {
    auto scenario = parseScenario(doc.dump(), errors);
    if (!scenario)
        return std::nullopt;
    return resolveScenario(*scenario, catalog(), errors, /*checkMemory=*/false);
}

// The most scale-out links on any switch of `graph` (devices and scale-up switches aside).
std::int64_t busiestSwitchPorts(const TopologyGraph& graph) {
    std::int64_t busiest = 0;
    for (auto [v, end] = boost::vertices(graph); v != end; ++v) {
        if (graph[*v].kind == VertexKind::Device || graph[*v].kind == VertexKind::ScaleUpSwitch)
            continue;
        std::int64_t ports = 0;
        for (auto [e, eEnd] = boost::out_edges(*v, graph); e != eEnd; ++e)
            ports += graph[*e].scale_up ? 0 : 1;
        busiest = std::max(busiest, ports);
    }
    return busiest;
}

std::vector<Json>& docs() {
    static std::vector<Json> all;
    return all;
}

} // namespace

class TestTopology : public QObject {
    Q_OBJECT
private slots:
    void figures_data() {
        QTest::addColumn<qulonglong>("doc");
        QTest::addColumn<double>("bisection_GBps");
        QTest::addColumn<qlonglong>("diameter");
        QTest::addColumn<qlonglong>("switches");
        QTest::addColumn<qlonglong>("cables");
        QTest::addColumn<qlonglong>("nics");
        QTest::addColumn<qlonglong>("scaleUpSwitches");
        QTest::addColumn<qlonglong>("scaleUpLinks");
        docs().clear();
        auto row = [](const char* name, Json doc, double bisection, qlonglong diameter, qlonglong switches,
                      qlonglong cables, qlonglong nics, qlonglong suSwitches, qlonglong suLinks) {
            docs().push_back(std::move(doc));
            QTest::newRow(name) << static_cast<qulonglong>(docs().size() - 1) << bisection << diameter
                                << switches << cables << nics << suSwitches << suLinks;
        };
        // 128 H100 (16 nodes), 4 leaves of 32 NICs, 32 uplinks each: 2 spines of 64 ports. Half the
        // devices (2 leaves) send 64 x 50 GB/s. Cables: 128 NIC + 4 x 32 uplinks.
        row("fat tree, 2 tiers", cluster(128, Json{{"kind", "fat-tree"}, {"oversubscription", 1.0}}), 3200.0,
            4, 6, 256, 128, 16, 128);
        // 32 devices, one node per leaf, 8 down and 2 up at 4:1: one 16-port spine takes all 8 uplinks.
        // Bisection: 2 leaves x 2 uplinks x (8 x 50 / 4 / 2) GB/s = 200.
        row("fat tree, 4:1",
            cluster(
                32,
                Json{{"kind", "fat-tree"}, {"oversubscription", 4.0}, {"nodes_per_leaf", 1}, {"radix", 16}}),
            200.0, 4, 5, 40, 32, 4, 32);
        // Rail-optimised, 3 tiers of 8-port switches: 2 nodes per rail leaf, 8 rails x 2 units = 16
        // leaves, 4 pods of 4 leaves with 1 aggregation switch each, 2 cores. 16 x 50 / 2 = 400 GB/s.
        row("rail fat tree, 3 tiers",
            cluster(32, Json{{"kind", "rail-fat-tree"},
                             {"tiers", 3},
                             {"oversubscription", 2.0},
                             {"nodes_per_leaf", 2},
                             {"radix", 8}}),
            400.0, 6, 22, 64, 32, 4, 32);
        // 4 x 4 x 4 torus at 100 Gb/s: a cut across z crosses 2 x 16 links of 12.5 GB/s; 2+2+2 hops.
        row("torus 4x4x4", cluster(64, Json{{"kind", "torus-3d"}, {"dims", {4, 4, 4}}, {"link_Gbps", 100.0}}),
            400.0, 6, 0, 192, 0, 8, 64);
        // 4 groups of 2 routers with 4 devices each, 4 global links per router: 2 links per group pair.
        // Halves (groups 0-1 | 2-3): 4 pairs x 2 x 12.5 GB/s. Device, local, global, local, device: 5.
        // Cables: 32 NIC + 4 local + 6 pairs x 2 global.
        row("dragonfly",
            cluster(
                32,
                Json{{"kind", "dragonfly"}, {"groups", 4}, {"routers_per_group", 2}, {"link_Gbps", 100.0}}),
            100.0, 5, 8, 48, 32, 4, 32);
        row("single switch", cluster(32, Json{{"kind", "single-switch"}}), 800.0, 2, 1, 32, 32, 4, 32);
        // MI300X: Infinity Fabric all-to-all inside a node (28 links per 8 GPUs), no scale-up switch.
        row("infinity fabric mesh", cluster(32, Json{{"kind", "single-switch"}}, "mi300x"), 800.0, 2, 1, 32,
            32, 0, 4 * 28);
        // GB200 NVL72: 2 racks of 72 GPUs, each one NVLink domain; rail leaves hold one GPU of each rack.
        // Each leaf joins both halves, so the halves exchange 72 x 50 GB/s through the leaves alone.
        // 72 leaves, 3 pods of up to 32 leaves with 2 aggregation switches each, 4 cores.
        row("nvl72", cluster(144, Json{{"kind", "rail-fat-tree"}, {"tiers", 3}}, "gb200", 72), 3600.0, 6, 82,
            144 + 72 * 2 + 72 * 2, 144, 2, 144);
    }

    // Every figure as worked out by hand, and the closed forms against the graph itself: max flow
    // between the halves, BFS from every device.
    void figures() {
        QFETCH(qulonglong, doc);
        QFETCH(double, bisection_GBps);
        QFETCH(qlonglong, diameter);
        QFETCH(qlonglong, switches);
        QFETCH(qlonglong, cables);
        QFETCH(qlonglong, nics);
        QFETCH(qlonglong, scaleUpSwitches);
        QFETCH(qlonglong, scaleUpLinks);
        Diagnostics errors;
        const auto rs = resolveDoc(docs().at(doc), errors);
        QVERIFY2(rs, joinDiagnostics(errors).c_str());
        const auto& t = rs->topology;
        QCOMPARE(t.bisection_GBps, bisection_GBps);
        QCOMPARE(t.diameter_hops, diameter);
        QCOMPARE(t.switches, switches);
        QCOMPARE(t.cables, cables);
        QCOMPARE(t.nics, nics);
        QCOMPARE(t.scale_up_switches, scaleUpSwitches);
        QCOMPARE(t.scale_up_links, scaleUpLinks);

        const auto graph = buildTopologyGraph(rs->network);
        QVERIFY(std::abs(halvesMaxFlow_Bps(graph, rs->network.devices) / 1e9 - bisection_GBps) <
                1e-9 * bisection_GBps);
        std::vector<std::int64_t> all;
        for (std::int64_t d = 0; d < rs->network.devices; ++d)
            all.push_back(d);
        QCOMPARE(scaleOutEccentricity(graph, rs->network.devices, all), diameter);
        // Port counts respected: no switch has more links than the radix.
        const std::int64_t ports = busiestSwitchPorts(graph);
        QVERIFY2(ports <= rs->network.radix, qPrintable(QStringLiteral("%1 ports").arg(ports)));
    }

    // Oversubscribed and uneven cases the hand-checked rows do not cover: the closed form equals max flow.
    void bisectionMatchesMaxFlow_data() {
        QTest::addColumn<qulonglong>("doc");
        docs().clear();
        auto row = [](const char* name, Json doc) {
            docs().push_back(std::move(doc));
            QTest::newRow(name) << static_cast<qulonglong>(docs().size() - 1);
        };
        row("rail 2 tiers 3:1, split units",
            cluster(96, Json{{"kind", "rail-fat-tree"}, {"oversubscription", 3.0}, {"nodes_per_leaf", 5}}));
        row("fat tree 2:1, odd leaves",
            cluster(96, Json{{"kind", "fat-tree"}, {"oversubscription", 2.0}, {"nodes_per_leaf", 5}}));
        row("fat tree, 3 tiers",
            cluster(256, Json{{"kind", "fat-tree"}, {"tiers", 3}, {"nodes_per_leaf", 1}, {"radix", 16}}));
        row("dragonfly 6 groups",
            cluster(96, Json{{"kind", "dragonfly"}, {"groups", 6}, {"routers_per_group", 4}}));
        row("torus 2x4x8", cluster(64, Json{{"kind", "torus-3d"}, {"dims", {2, 4, 8}}}));
    }
    void bisectionMatchesMaxFlow() {
        QFETCH(qulonglong, doc);
        Diagnostics errors;
        const auto rs = resolveDoc(docs().at(doc), errors);
        QVERIFY2(rs, joinDiagnostics(errors).c_str());
        const double flow = halvesMaxFlow_Bps(buildTopologyGraph(rs->network), rs->network.devices);
        QVERIFY2(std::abs(halvesBisection_Bps(rs->network) - flow) < 1e-9 * flow,
                 qPrintable(QStringLiteral("closed form %1, max flow %2 GB/s")
                                .arg(halvesBisection_Bps(rs->network) / 1e9)
                                .arg(flow / 1e9)));
    }

    void impossible_data() {
        QTest::addColumn<qulonglong>("doc");
        QTest::addColumn<QString>("expected");
        docs().clear();
        auto row = [](const char* name, Json doc, const char* expected) {
            docs().push_back(std::move(doc));
            QTest::newRow(name) << static_cast<qulonglong>(docs().size() - 1) << QString::fromUtf8(expected);
        };
        row("more devices than switch ports", cluster(128, Json{{"kind", "single-switch"}}),
            "cluster.network.topology.radix: one 64-port switch cannot connect 128 devices");
        row("leaf ports",
            cluster(128, Json{{"kind", "fat-tree"}, {"oversubscription", 1.0}, {"nodes_per_leaf", 8}}),
            "cluster.network.topology.nodes_per_leaf: 8 nodes x 8 NICs = 64 downlinks + 64 uplinks exceed a "
            "64-port leaf switch");
        row("two tiers too few", cluster(128, Json{{"kind", "rail-fat-tree"}, {"tiers", 2}, {"radix", 8}}),
            "cluster.network.topology.tiers: 2 tiers of 8-port switches connect at most 8 leaves");
        row("three tiers too few", cluster(128, Json{{"kind", "rail-fat-tree"}, {"tiers", 3}, {"radix", 4}}),
            "cluster.network.topology.radix: 3 tiers of 4-port switches connect at most 4 pods");
        row("router ports",
            cluster(128, Json{{"kind", "dragonfly"}, {"groups", 2}, {"routers_per_group", 1}}),
            "cluster.network.topology.radix: a dragonfly router needs 64 device + 0 local + 64 global = 128 "
            "ports");
        row("disconnected dragonfly",
            cluster(128, Json{{"kind", "dragonfly"},
                              {"groups", 16},
                              {"routers_per_group", 1},
                              {"global_links_per_router", 2}}),
            "cluster.network.topology.global_links_per_router: disconnected: a group has 1 x 2 global links "
            "for "
            "15 other groups");
        row("torus size", cluster(128, Json{{"kind", "torus-3d"}, {"dims", {4, 4, 4}}}),
            "cluster.network.topology.dims: 4 x 4 x 4 = 64 vertices for 128 devices");
        row("zero link bandwidth",
            cluster(64, Json{{"kind", "torus-3d"}, {"dims", {4, 4, 4}}, {"link_Gbps", 0}}),
            "cluster.network.topology.link_Gbps: must be greater than 0, got 0");
        row(
            "zero NIC bandwidth",
            [] {
                Json d = cluster(32, Json{{"kind", "single-switch"}});
                d["cluster"]["network"]["nic_Gbps"] = 0;
                return d;
            }(),
            "cluster.network.nic_Gbps: must be greater than 0, got 0");
        row("scale-up domain", cluster(32, Json{{"kind", "single-switch"}}, "h100-sxm", 16),
            "cluster.pools[0].devices_per_node: 16 devices per node, but one nvlink4 scale-up domain of "
            "h100-sxm holds at most 8");
        row("field of another kind", cluster(64, Json{{"kind", "fat-tree"}, {"dims", {4, 4, 4}}}),
            "cluster.network.topology.dims: only used by torus-3d, not by fat-tree");
        row("dragonfly without groups", cluster(64, Json{{"kind", "dragonfly"}, {"routers_per_group", 2}}),
            "cluster.network.topology.groups: required for dragonfly");
        row("tiers", cluster(64, Json{{"kind", "rail-fat-tree"}, {"tiers", 4}}),
            "cluster.network.topology.tiers: must be at most 3, got 4");
        row("torus dims not three", cluster(64, Json{{"kind", "torus-3d"}, {"dims", {8, 8}}}),
            "cluster.network.topology.dims: expected an array of 3 positive integers");
    }
    void impossible() {
        QFETCH(qulonglong, doc);
        QFETCH(QString, expected);
        Diagnostics errors;
        QVERIFY(!resolveDoc(docs().at(doc), errors));
        const QString got = QString::fromStdString(joinDiagnostics(errors));
        QVERIFY2(got.contains(expected),
                 qPrintable(QStringLiteral("expected \"%1\" in:\n%2").arg(expected, got)));
    }

    // The graph checker on graphs a plan would never build: a link without bandwidth, an island.
    // Tiers left to the radix: a rail fat tree whose leaves outnumber the radix gets a third tier (it was
    // held at two and refused), within the radix at every switch.
    void railFatTreeTakesTheTiersItNeeds() {
        Diagnostics errors;
        const auto rs = resolveDoc(cluster(128, Json{{"kind", "rail-fat-tree"}, {"radix", 8}}), errors);
        QVERIFY2(rs, joinDiagnostics(errors).c_str());
        QCOMPARE(rs->network.leaves, std::int64_t(8 * 4)); // 8 rails x 4 units of 4 nodes (4 down, 4 up)
        QCOMPARE(rs->network.tiers, std::int64_t(3));
        QVERIFY(busiestSwitchPorts(buildTopologyGraph(rs->network)) <= 8);
        Diagnostics small;
        const auto two = resolveDoc(cluster(128, Json{{"kind", "rail-fat-tree"}, {"radix", 64}}), small);
        QVERIFY2(two, joinDiagnostics(small).c_str());
        QCOMPARE(two->network.tiers, std::int64_t(2)); // 8 rail leaves: two tiers, as before
    }

    void checkerFindsBrokenGraphs() {
        TopologyGraph g;
        for (int d = 0; d < 3; ++d)
            boost::add_vertex(TopologyVertex{VertexKind::Device, d}, g);
        const auto leaf = boost::add_vertex(TopologyVertex{VertexKind::Leaf, 0}, g);
        boost::add_edge(0, leaf, TopologyEdge{50e9, 1e-6, false}, g);
        boost::add_edge(1, leaf, TopologyEdge{0.0, 1e-6, false}, g);
        Diagnostics errors;
        QVERIFY(!checkTopologyGraph(g, 3, "cluster.network.topology", errors));
        const QString got = QString::fromStdString(joinDiagnostics(errors));
        QVERIFY2(got.contains(QStringLiteral("cluster.network.topology: a scale-out link has no bandwidth")),
                 qPrintable(got));
        QVERIFY2(got.contains(QStringLiteral("disconnected: 1 devices or switches cannot be reached")),
                 qPrintable(got));
        boost::add_edge(2, 0, TopologyEdge{50e9, 1e-6, true}, g); // reachable, but only over scale-up
        errors.clear();
        QVERIFY(!checkTopologyGraph(g, 3, "cluster.network.topology", errors));
        QVERIFY2(QString::fromStdString(joinDiagnostics(errors))
                     .contains(QStringLiteral("device 2 has no scale-out route to device 0")),
                 joinDiagnostics(errors).c_str());
    }

    void newFieldsRoundTrip() {
        Json doc = cluster(64, Json{{"kind", "dragonfly"},
                                    {"oversubscription", 1.0},
                                    {"groups", 4},
                                    {"routers_per_group", 2},
                                    {"global_links_per_router", 3},
                                    {"radix", 48},
                                    {"link_Gbps", 200.0},
                                    {"latency_us", 0.5}});
        Diagnostics errors;
        auto s = parseScenario(doc.dump(), errors);
        QVERIFY2(s, joinDiagnostics(errors).c_str());
        QVERIFY(s->cluster.network.topology.kind == TopologyKind::Dragonfly);
        QCOMPARE(*s->cluster.network.topology.global_links_per_router, std::int64_t{3});
        auto again = parseScenario(serializeScenario(*s), errors);
        QVERIFY(again);
        QVERIFY(*again == *s);
        const Json written = Json::parse(serializeScenario(*s))["cluster"]["network"]["topology"];
        // Same keys and values; the order of keys is the writer's.
        QVERIFY2(nlohmann::json::parse(written.dump()) ==
                     nlohmann::json::parse(doc["cluster"]["network"]["topology"].dump()),
                 written.dump().c_str());

        s->cluster.network.topology = Topology{};
        s->cluster.network.topology.kind = TopologyKind::Torus3d;
        s->cluster.network.topology.dims = std::vector<std::int64_t>{4, 4, 4};
        s->cluster.network.topology.tiers.reset();
        again = parseScenario(serializeScenario(*s), errors);
        QVERIFY(again);
        QVERIFY(*again == *s);
        s->cluster.network.topology.kind = TopologyKind::RailFatTree;
        s->cluster.network.topology.dims.reset();
        s->cluster.network.topology.tiers = 3;
        again = parseScenario(serializeScenario(*s), errors);
        QVERIFY(again);
        QVERIFY(*again == *s);
    }

    // 16,384 devices: planning, building, checking and measuring stay linear (the whole resolve).
    void largeClusterIsQuick() {
        Json doc = cluster(16384, Json{{"kind", "rail-fat-tree"}, {"tiers", 3}});
        Diagnostics errors;
        QElapsedTimer timer;
        timer.start();
        const auto rs = resolveDoc(doc, errors);
        QVERIFY2(rs, joinDiagnostics(errors).c_str());
        QVERIFY2(timer.elapsed() < 2000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));
        QCOMPARE(rs->topology.bisection_GBps, 8192 * 50.0);
        QCOMPARE(rs->topology.diameter_hops, std::int64_t{6});
    }
};

QTEST_APPLESS_MAIN(TestTopology)
#include "tst_topology.moc"
