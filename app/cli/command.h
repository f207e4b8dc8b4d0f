#pragma once

// The command table of Choreo's command-line programs. Each command declares its arguments, its options
// and its handler once; the parser, the usage text, `--help` and `COMMAND --help` are derived from these
// declarations, and an option that a command does not take is an error.

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace choreo::cli {

// One option. A flag takes no value (`value` empty).
struct Option {
    std::string_view name;       // "--fidelity"
    std::string_view value;      // the value's placeholder in the usage ("F"); empty for a flag
    std::string_view help;       // what it does, for --help
    std::string_view needs = {}; // what to say when the value is missing ("a folder")
    std::vector<std::string_view> aliases = {}; // other spellings ("-o")
    // Checks a value as it is read: returns what is wrong with it, or an empty string.
    std::function<std::string(const std::string&)> check = {};
    bool repeatable = false; // may be given more than once (--set); else the last counts
};

// What the parser read for one command.
struct Invocation {
    std::string program; // "choreo-sim"
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>, std::less<>>
        options;                  // canonical name -> values, in order
    std::filesystem::path assets; // --assets, or where the assets are found
    std::filesystem::path self;   // this program's file
    int argc = 0;                 // for a QApplication where one is needed
    char** argv = nullptr;

    bool has(std::string_view name) const { return options.find(name) != options.end(); }
    std::optional<std::string> value(std::string_view name) const; // the last one given
    std::vector<std::string> values(std::string_view name) const;  // every one, in order
};

struct Command {
    std::string_view name;
    std::string_view arguments; // "SCENARIO", "CSV..."; empty when it takes none
    std::string_view summary;   // the paragraph under it in --help
    std::vector<const Option*> options;
    std::function<int(const Invocation&)> run;
    std::vector<const Option*> required = {}; // of `options`, those it cannot run without
};

// A program: its name, a line of what it is, its commands in --help's order, and the options every
// command takes (--assets).
struct Program {
    std::string_view name;
    std::string_view version;
    std::string_view about;
    std::vector<const Command*> commands;
    std::vector<const Option*> common;
};

// Parses argv against `program`'s table and runs the command. Usage errors exit 1 with the problem
// named; an exception a handler lets through is an internal error (exit 5).
int dispatch(const Program& program, int argc, char** argv);

// Says `message` on standard error with a pointer to --help; returns the usage exit code.
int usageError(const Invocation& invocation, const std::string& message);

// The full --help text and one command's (both written from the table).
std::string programHelp(const Program& program);
std::string commandHelp(const Program& program, const Command& command);

} // namespace choreo::cli
