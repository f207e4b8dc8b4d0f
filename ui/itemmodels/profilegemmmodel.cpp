#include "ui/itemmodels/profilegemmmodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr int kFitSamples = 32; // points of a fitted curve: smooth on a log axis

} // namespace

ProfileGemmModel::ProfileGemmModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void ProfileGemmModel::setProfile(const models::Profile& profile, const models::Device* spec) {
    beginResetModel();
    rows_.clear();
    hasPeaks_ = false;
    for (const auto& [precision, curve] : profile.fit.gemm) {
        std::optional<double> peak;
        if (spec)
            if (auto it = spec->peak_tflops.find(precision);
                it != spec->peak_tflops.end() && it->second.value > 0)
                peak = it->second.value;
        hasPeaks_ = hasPeaks_ || peak.has_value();
        auto fraction = [&](double tflops) {
            return peak ? std::optional<double>(tflops / *peak) : std::nullopt;
        };
        double lo = 0, hi = 0;
        for (const auto& p : curve.points) {
            const double g = p.gflop();
            lo = lo > 0 ? std::min(lo, g) : g;
            hi = std::max(hi, g);
            rows_.push_back({precision, Kind::Measured, p, g, p.tflops, fraction(p.tflops)});
        }
        if (lo <= 0)
            continue;
        // The fitted curve over the measured range, a little beyond each end.
        const double from = std::log(lo / 2.0), to = std::log(hi * 2.0);
        for (int i = 0; i < kFitSamples; ++i) {
            const double g = std::exp(from + (to - from) * i / (kFitSamples - 1));
            const double t = curve.tflopsAt(g);
            rows_.push_back({precision, Kind::Fitted, {}, g, t, fraction(t)});
        }
    }
    endResetModel();
}

void ProfileGemmModel::clear() {
    beginResetModel();
    rows_.clear();
    hasPeaks_ = false;
    endResetModel();
}

int ProfileGemmModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ProfileGemmModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileGemmModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const Row& r = rows_[static_cast<std::size_t>(index.row())];
    const bool measured = r.kind == Kind::Measured;
    if (role == KeyRole && index.column() == PrecisionColumn)
        return QString::fromStdString(models::toString(r.precision));
    if (role == StatusRole)
        return static_cast<int>(r.kind);
    if (role == ValueRole) {
        switch (index.column()) {
        case GflopColumn:
            return r.gflop;
        case TflopsColumn:
            return r.tflops;
        case FractionColumn:
            return r.fraction ? QVariant(*r.fraction) : QVariant();
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= GflopColumn ? QVariant((Qt::AlignRight | Qt::AlignVCenter).toInt())
                                             : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case PrecisionColumn:
        return QString::fromStdString(models::toString(r.precision));
    case KindColumn:
        return measured ? tr("measured") : tr("fitted");
    case ShapeColumn:
        return measured ? u"%1 × %2 × %3"_s.arg(r.point.m).arg(r.point.n).arg(r.point.k) : QString();
    case GflopColumn:
        return formatSignificant(r.gflop, 3);
    case TflopsColumn:
        return formatSignificant(r.tflops, 4);
    case FractionColumn:
        return r.fraction ? formatPercent(*r.fraction) : QString();
    default:
        return {};
    }
}

QVariant ProfileGemmModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case PrecisionColumn:
        return tr("Precision");
    case KindColumn:
        return tr("Kind");
    case ShapeColumn:
        return tr("Shape (m × n × k)");
    case GflopColumn:
        return tr("Size (GFLOP)");
    case TflopsColumn:
        return tr("TFLOP/s");
    case FractionColumn:
        return tr("Of peak");
    default:
        return {};
    }
}

} // namespace choreo::ui
