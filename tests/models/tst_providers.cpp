// Rent providers (assets/catalog/providers.json): their offers load with a source each and name catalog
// devices; a scenario's costs.provider prices its pools at the offer under any price it sets; an unknown
// provider, or one that does not offer the training device, names costs.provider; buying ignores it.
#include "models/catalog.h"
#include "models/resolved.h"

#include <QTest>

#include "stagetesting.h"

using namespace choreo::models;
using choreo::test::catalog;
using choreo::test::hasError;

namespace {

const std::filesystem::path& kDefault = choreo::test::kDefaultScenario;

double trainingRent(const std::vector<std::string>& sets) {
    const auto rs = choreo::test::resolveOrFail(kDefault, sets);
    return rs.pools[rs.training_pool].rent_usd_per_device_hour;
}

} // namespace

class TstProviders : public QObject {
    Q_OBJECT

private slots:
    // Every offer cites a source and names a catalog device by its id; AWS rents H100s eight to a p5.
    void offersNameCatalogDevices() {
        QVERIFY(catalog().providers().size() >= 5);
        for (const auto& provider : catalog().providers()) {
            QVERIFY(!provider.name.empty());
            for (const auto& offer : provider.offers) {
                QVERIFY2(catalog().find(offer.device), offer.device.c_str());
                QVERIFY(catalog().source(offer.usd_per_instance_hour.source));
                QVERIFY(offer.usdPerDeviceHour() > 0.0);
            }
        }
        const RentOffer* p5 = catalog().provider("aws")->offer("h100-sxm");
        QVERIFY(p5);
        QCOMPARE(p5->instance, std::string("p5.48xlarge"));
        QCOMPARE(p5->usdPerDeviceHour(), 55.04 / 8.0);
        QVERIFY(!catalog().provider("aws")->offer("b300"));
    }

    // The provider's offer replaces the catalog's rent price; a price the scenario sets still wins.
    void providerPricesThePools() {
        QCOMPARE(trainingRent({}), catalog().find("h100-sxm")->rent_usd_per_hour.value);
        QCOMPARE(trainingRent({"costs.provider=aws"}), 55.04 / 8.0);
        QCOMPARE(trainingRent({"costs.provider=lambda"}), 31.92 / 8.0);
        QCOMPARE(trainingRent({"costs.provider=aws", "costs.rent_usd_per_device_hour=2.5"}), 2.5);
        QCOMPARE(trainingRent({"costs.provider=aws", "cluster.pools[0].rent_usd_per_device_hour=3"}), 3.0);
        // Buying: the provider does not apply, and need not offer the device.
        const auto bought = choreo::test::resolveOrFail(
            kDefault, {"costs.mode=buy", "costs.provider=lambda", "cluster.pools[0].device=h200-sxm"});
        QCOMPARE(bought.pools[0].buy_usd_per_device, catalog().find("h200-sxm")->buy_usd.value);
    }

    void unknownOrMissingOfferNamesTheField() {
        Diagnostics errors;
        QVERIFY(!choreo::test::resolveWith(kDefault, {"costs.provider=awz"}, errors));
        QVERIFY2(hasError(errors, "costs.provider", "unknown provider \"awz\" (known: aws, gcp"),
                 joinDiagnostics(errors).c_str());
        errors.clear();
        QVERIFY(!choreo::test::resolveWith(kDefault, {"costs.provider=gcp", "cluster.pools[0].device=b200"},
                                           errors));
        QVERIFY2(hasError(errors, "costs.provider", "gcp offers no b200 (it offers h100-sxm, a100-sxm-80gb)"),
                 joinDiagnostics(errors).c_str());
    }
};

QTEST_APPLESS_MAIN(TstProviders)
#include "tst_providers.moc"
