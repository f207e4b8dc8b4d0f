#include "models/validationcase.h"

#include "models/csvrecord.h"
#include "models/fieldtable.h"
#include "models/jsonreader.h"
#include "models/topology.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace choreo::models {

namespace {

class Row : public CsvRow {
public:
    using CsvRow::CsvRow;

    // Sets every field the field table maps to a column of this file (models/fieldtable.h). An empty cell
    // leaves the field's default; a required field's empty cell is an error.
    void applyTableColumns(Scenario& s) {
        for (const auto& field : scenarioFields()) {
            if (field.csv_column.empty() || !field.appliesTo(s))
                continue;
            const std::string cell = text(field.csv_column);
            if (cell.empty()) {
                if (field.required)
                    error(field.csv_column, "missing value");
                continue;
            }
            std::string problem;
            if (auto value = parseFieldCell(field, cell, problem))
                field.set(s, *value);
            else
                error(field.csv_column, problem);
        }
    }
};

// The optional recompute_modules column: Megatron-Core's --recompute-modules names, separated by spaces or
// '+' ("layernorm moe_act"), in place of its default (the attention core alone); empty: the default. The
// names are the field table's flags under workload.recompute_modules.
void readRecomputeModules(Row& row, Scenario& s) {
    std::string cell = row.text("recompute_modules");
    if (cell.empty())
        return;
    std::replace(cell.begin(), cell.end(), '+', ' ');
    std::istringstream names(cell);
    s.workload.recompute_modules = RecomputeModules{};
    s.workload.recompute_modules.core_attn = false;
    const std::string object = "workload.recompute_modules";
    for (std::string name; names >> name;) {
        std::string path = object;
        path += '.';
        path += name;
        if (const FieldSpec* field = findField(path))
            field->set(s, true);
        else
            row.error("recompute_modules",
                      "unknown module \"" + name + "\" (known: " + fieldKeysListed(object) + ")");
    }
}

// The scenario of one row: its pool and network, and the fields the row's columns give.
void describeRowScenario(Row& row, ValidationCase& c, const std::string& where, Diagnostics& errors) {
    Scenario& s = c.scenario;
    s.name = "validation case " + c.id + ": " + c.model;
    s.cluster.pools.push_back({"accelerators", c.accelerator, c.devices, row.integer("accel_per_node", 8)});
    // A scale-up domain wider than an 8-GPU node (a GB200 NVL72 rack) has more NICs than one leaf switch
    // takes: such clusters are wired rail-optimised, as NVIDIA's GB200 SuperPOD reference architecture
    // is.
    // A job inside one scale-up domain (a TPU slice, one NVL72 rack) sends nothing over the network: one
    // switch stands for it, whatever the domain's size.
    const auto& pool = s.cluster.pools.back();
    s.cluster.network.topology.kind =
        pool.devices_per_node > 8 ? TopologyKind::RailFatTree : TopologyKind::FatTree;
    if (pool.count <= pool.devices_per_node) // the switch gets the ports it needs, as in the desktop
        s.cluster.network.topology =
            topologyForKind(TopologyKind::SingleSwitch, pool, s.cluster.network.topology);
    s.cluster.network.topology.oversubscription = 1.0;
    Workload& w = s.workload;
    w.model.name = c.model;
    row.applyTableColumns(s);
    w.tokens_to_train = static_cast<double>(w.global_batch * w.model.seq_len) * 1000.0;
    w.reliability.failures = false; // a published step, not a whole run
    const std::int64_t experts = row.integer("moe_experts", 0, false);
    if (experts > 0) {
        MoeShape moe;
        moe.experts = experts;
        moe.top_k = row.integer("moe_topk", 1, false);
        moe.shared_experts = row.integer("moe_shared_experts", 0, false);
        moe.expert_ffn_hidden = row.integer("moe_ffn_hidden", w.model.ffn_hidden, false);
        moe.dense_layers = row.integer("moe_dense_layers", 0, false);
        w.model.moe = moe;
    }
    // Gated-FFN models (Llama, Mixtral, Qwen, DeepSeek, GPT-OSS) train without dropout, as their
    // released configurations say; ungated ones (GPT-3 shapes, Nemotron-4) are given Megatron's default.
    w.model.dropout = !w.model.ffn_gated;
    const std::string recompute = row.text("recompute");
    if (recompute == "full")
        w.recompute = Recompute::Full;
    else if (recompute == "selective")
        w.recompute = Recompute::Selective;
    else if (recompute == "none" || recompute.empty())
        w.recompute = Recompute::None;
    else
        row.error("recompute", "unknown recomputation \"" + recompute + "\" (known: none, selective, full)");
    readRecomputeModules(row, s);
    if (auto p = precisionFromString(row.text("precision")))
        w.precision = *p;
    else
        errors.push_back({where + ".precision", "unknown precision \"" + row.text("precision") + "\""});
    s.costs.mode = CostMode::Rent;
    s.costs.rent_usd_per_device_hour = 1.0; // cost is not validated; avoid depending on a catalog price
}

// The header row: each column's index (the overridden column appended when absent); nullopt with an error
// per missing column.
std::optional<std::map<std::string, std::size_t>>
readCsvHeader(std::istream& in, const std::optional<CsvOverride>& override, Diagnostics& errors) {
    std::string line;
    if (!std::getline(in, line)) {
        errors.push_back({"line 1", "empty file: a header row is needed"});
        return std::nullopt;
    }
    std::map<std::string, std::size_t> columns;
    const auto header = splitCsvRecord(line);
    for (std::size_t i = 0; i < header.size(); ++i)
        columns[header[i]] = i;
    if (override && !columns.count(override->column))
        columns[override->column] = header.size();
    std::vector<std::string> needed{"id",        "model",     "accelerator", "n_accel", "accel_per_node",
                                    "recompute", "precision", "step_time_s"};
    for (const auto& field : scenarioFields())
        if (field.required && !field.csv_column.empty())
            needed.push_back(field.csv_column);
    const std::size_t before = errors.size();
    for (const auto& column : needed)
        if (!columns.count(column))
            errors.push_back({"header", "missing column \"" + column + "\""});
    if (errors.size() != before)
        return std::nullopt;
    return columns;
}

} // namespace

std::vector<ValidationCase> parseValidationCsv(const std::string& text, Diagnostics& errors,
                                               const std::optional<CsvOverride>& override) {
    std::vector<ValidationCase> cases;
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string::npos) {
        const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n') + 1;
        errors.push_back({"line " + std::to_string(line),
                          "not UTF-8 text (byte " + std::to_string(bad + 1) + "); save the file as UTF-8"});
        return cases;
    }
    std::istringstream in(text);
    const auto columnsRead = readCsvHeader(in, override, errors);
    if (!columnsRead || !errors.empty())
        return cases;
    const auto& columns = *columnsRead;
    std::string line;
    int lineNo = 1;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line == "\r")
            continue;
        const std::size_t before = errors.size();
        auto cells = splitCsvRecord(line);
        if (override) {
            const std::size_t at = columns.at(override->column);
            if (cells.size() <= at)
                cells.resize(at + 1);
            cells[at] = override->value;
        }
        Row row(columns, std::move(cells), "line " + std::to_string(lineNo), errors);
        ValidationCase c;
        c.id = row.text("id");
        c.source = row.text("source");
        c.reliability = row.text("reliability");
        c.model = row.text("model");
        c.accelerator = row.text("accelerator");
        c.basis = row.text("basis");
        c.devices = row.integer("n_accel", 0);
        c.measured_step_time_s = row.number("step_time_s");
        if (c.measured_step_time_s <= 0.0 && !row.text("step_time_s").empty())
            errors.push_back(
                {"line " + std::to_string(lineNo) + ".step_time_s",
                 "must be a positive number of seconds, got \"" + row.text("step_time_s") + "\""});

        describeRowScenario(row, c, "line " + std::to_string(lineNo), errors);
        if (!row.text("finetune").empty())
            c.skip = "fine-tuning runs are not modelled yet";
        if (errors.size() != before)
            continue;
        cases.push_back(std::move(c));
    }
    return cases;
}

namespace {

// The extra file's rows by id, each the cells of its columns other than id; nullopt with errors.
std::optional<std::map<std::string, std::vector<std::string>>>
extraRowsById(const std::string& extra, std::vector<std::string>& columns, Diagnostics& errors) {
    std::istringstream in(extra);
    std::string line;
    if (!std::getline(in, line)) {
        errors.push_back({"join: line 1", "empty file: a header row is needed"});
        return std::nullopt;
    }
    const auto header = splitCsvRecord(line);
    const auto id = std::find(header.begin(), header.end(), "id");
    if (id == header.end()) {
        errors.push_back({"join: header", "missing column \"id\""});
        return std::nullopt;
    }
    const auto idAt = static_cast<std::size_t>(id - header.begin());
    for (std::size_t i = 0; i < header.size(); ++i)
        if (i != idAt)
            columns.push_back(header[i]);
    std::map<std::string, std::vector<std::string>> rows;
    for (int lineNo = 2; std::getline(in, line); ++lineNo) {
        if (line.empty() || line == "\r")
            continue;
        auto cells = splitCsvRecord(line);
        cells.resize(header.size());
        std::vector<std::string> own;
        for (std::size_t i = 0; i < cells.size(); ++i)
            if (i != idAt)
                own.push_back(cells[i]);
        if (!rows.emplace(cells[idAt], std::move(own)).second)
            errors.push_back(
                {"join: line " + std::to_string(lineNo) + ".id", "id \"" + cells[idAt] + "\" repeats"});
    }
    if (!errors.empty())
        return std::nullopt;
    return rows;
}

} // namespace

std::optional<std::string> joinCsvColumns(const std::string& text, const std::string& extra,
                                          Diagnostics& errors) {
    std::vector<std::string> columns;
    auto rows = extraRowsById(extra, columns, errors);
    if (!rows)
        return std::nullopt;
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    const auto header = csvColumns(line);
    if (!header.count("id")) {
        errors.push_back({"header", "missing column \"id\""});
        return std::nullopt;
    }
    // A file that has every column already is read as it is (of several files, those that lack them).
    if (std::all_of(columns.begin(), columns.end(),
                    [&](const std::string& c) { return header.count(c) > 0; }))
        return text;
    for (const auto& column : columns)
        if (header.count(column))
            errors.push_back({"join: header", "column \"" + column + "\" is already in the validation file"});
    std::string joined = line;
    for (const auto& column : columns)
        joined += "," + csvCell(column);
    joined += "\n";
    while (std::getline(in, line)) {
        std::string appended;
        if (!line.empty() && line != "\r") {
            const auto cells = splitCsvRecord(line);
            const std::size_t idAt = header.at("id");
            const std::string id = idAt < cells.size() ? cells[idAt] : std::string();
            const auto found = rows->find(id);
            for (std::size_t i = 0; i < columns.size(); ++i)
                appended += "," + (found == rows->end() ? std::string() : csvCell(found->second[i]));
            if (found != rows->end())
                rows->erase(found);
        }
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        joined += line + appended + "\n";
    }
    for (const auto& [id, cells] : *rows)
        errors.push_back({"join: id " + id, "no row of the validation file has this id"});
    if (!errors.empty())
        return std::nullopt;
    return joined;
}

} // namespace choreo::models
