#include "app/cli/command.h"

#include "models/catalog.h"
#include "models/exitcodes.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace choreo::cli {

namespace {

constexpr std::size_t kHelpWidth = 100;

// `text` as lines of at most kHelpWidth columns, each after `indent` spaces.
std::string wrapped(std::string_view text, std::size_t indent) {
    std::istringstream words{std::string(text)};
    std::string out, line, word;
    while (words >> word) {
        if (!line.empty() && indent + line.size() + 1 + word.size() > kHelpWidth) {
            out += std::string(indent, ' ') + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty())
        out += std::string(indent, ' ') + line + "\n";
    return out;
}

std::string spelled(const Option& option) {
    std::string out(option.name);
    if (!option.value.empty())
        out.append(" ").append(option.value);
    if (option.repeatable)
        out += " ...";
    return out;
}

// "run SCENARIO [--json] [--fidelity F]", wrapped under the command's name.
std::string synopsis(const Command& command) {
    std::string out = "  " + std::string(command.name);
    if (!command.arguments.empty())
        out += " " + std::string(command.arguments);
    std::size_t column = out.size();
    const std::size_t indent = 4 + command.name.size();
    for (const Option* option : command.options) {
        const bool required =
            std::find(command.required.begin(), command.required.end(), option) != command.required.end();
        const std::string item = required ? " " + spelled(*option) : " [" + spelled(*option) + "]";
        if (column + item.size() > kHelpWidth) {
            out += "\n" + std::string(indent - 1, ' ');
            column = indent - 1;
        }
        out += item;
        column += item.size();
    }
    return out + "\n";
}

std::string optionLines(const std::vector<const Option*>& options) {
    std::string out;
    for (const Option* option : options) {
        std::string head = "  " + spelled(*option);
        for (auto alias : option->aliases)
            head += ", " + std::string(alias);
        out += head + "\n" + wrapped(option->help, 8);
    }
    return out;
}

std::string exitCodeLine() {
    std::string out = "Exit codes:";
    for (const auto& info : kExitCodes)
        out.append(" ").append(std::to_string(info.code)).append(" ").append(info.meaning).append(",");
    out.back() = '.';
    return wrapped(out, 0);
}

const Option* findOption(const std::vector<const Option*>& options, std::string_view spelling) {
    for (const Option* option : options) {
        if (option->name == spelling)
            return option;
        if (std::find(option->aliases.begin(), option->aliases.end(), spelling) != option->aliases.end())
            return option;
    }
    return nullptr;
}

// Every option any command of `program` takes, each once, in the order of first appearance.
std::vector<const Option*> allOptions(const Program& program) {
    std::vector<const Option*> all = program.common;
    for (const Command* command : program.commands)
        for (const Option* option : command->options)
            if (std::find(all.begin(), all.end(), option) == all.end())
                all.push_back(option);
    return all;
}

const Command* findCommand(const Program& program, std::string_view name) {
    for (const Command* command : program.commands)
        if (command->name == name)
            return command;
    return nullptr;
}

std::string commandNames(const Program& program) {
    std::string names;
    for (const Command* command : program.commands)
        names += (names.empty() ? "" : ", ") + std::string(command->name);
    return names;
}

// The index of the command's name in `args`: the first word that is neither an option nor the value of
// one (an option of any command, as options may come before the command). -1 when there is none.
long commandIndex(const Program& program, const std::vector<std::string>& args) {
    const auto options = allOptions(program);
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i].size() > 1 && args[i][0] == '-') {
            const Option* option = findOption(options, args[i]);
            if (option && !option->value.empty())
                ++i;
            continue;
        }
        return static_cast<long>(i);
    }
    return -1;
}

enum class Parsed { Ok, Help, Error };

// Reads `args` (all but the command's name) into `call` against the command's options and the common ones.
Parsed readOptions(const Program& program, const Command& command, const std::vector<std::string>& args,
                   Invocation& call) {
    std::vector<const Option*> accepted = program.common;
    accepted.insert(accepted.end(), command.options.begin(), command.options.end());
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "-h" || arg == "--help")
            return Parsed::Help;
        if (arg.size() < 2 || arg[0] != '-') {
            call.positional.push_back(arg);
            continue;
        }
        const Option* option = findOption(accepted, arg);
        if (!option) {
            const bool elsewhere = findOption(allOptions(program), arg) != nullptr;
            usageError(call, elsewhere ? std::string(command.name) + " does not take " + arg + " (see '" +
                                             std::string(program.name) + " " + std::string(command.name) +
                                             " --help')"
                                       : "unknown option " + arg);
            return Parsed::Error;
        }
        std::string value;
        if (!option->value.empty()) {
            // A missing value, or the next option where the value belongs ("--chart --json").
            if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) {
                const std::string needs = option->needs.empty()
                                              ? "a value (" + std::string(option->value) + ")"
                                              : std::string(option->needs);
                usageError(call, std::string(option->name) + " needs " + needs);
                return Parsed::Error;
            }
            value = args[++i];
            if (option->check) {
                if (const std::string problem = option->check(value); !problem.empty()) {
                    usageError(call, std::string(option->name) + ": " + problem);
                    return Parsed::Error;
                }
            }
        }
        auto& given = call.options[std::string(option->name)];
        if (!option->repeatable)
            given.clear();
        given.push_back(value);
    }
    for (const Option* option : command.required) {
        if (!call.has(option->name)) {
            usageError(call, std::string(command.name) + " needs " + spelled(*option));
            return Parsed::Error;
        }
    }
    return Parsed::Ok;
}

// This program's own file (/proc/self/exe), or argv[0] made absolute where that cannot be read.
std::filesystem::path selfPath(const char* argv0) {
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::absolute(argv0) : self;
}

int runCommand(const Program& program, const Command& command, Invocation& call) {
    call.self = selfPath(call.argv[0]);
    if (const auto assets = call.value("--assets"))
        call.assets = *assets;
    else
        call.assets = models::locateAssets(call.argv[0]);
    try {
        return command.run(call);
    } catch (const std::exception& e) {
        std::cerr << program.name << ": internal error: " << e.what() << "\n";
        return kExitInternal;
    }
}

} // namespace

std::optional<std::string> Invocation::value(std::string_view name) const {
    const auto it = options.find(name);
    return it == options.end() ? std::nullopt : std::optional<std::string>(it->second.back());
}

std::vector<std::string> Invocation::values(std::string_view name) const {
    const auto it = options.find(name);
    return it == options.end() ? std::vector<std::string>() : it->second;
}

int usageError(const Invocation& call, const std::string& message) {
    std::cerr << call.program << ": " << message << "\nTry '" << call.program << " --help'.\n";
    return kExitUsage;
}

std::string programHelp(const Program& program) {
    std::string out = "Usage: " + std::string(program.name) + " COMMAND [OPTIONS]\n\n" +
                      wrapped(program.about, 0) + "\nCommands:\n";
    for (const Command* command : program.commands)
        out += synopsis(*command) + wrapped(command->summary, 8);
    out += "\nOptions:\n" + optionLines(allOptions(program)) + "  -h, --help\n        This help; after a " +
           "command, that command's\n  --version\n        Print the version\n\n" + exitCodeLine();
    return out;
}

std::string commandHelp(const Program& program, const Command& command) {
    std::vector<const Option*> options = command.options;
    options.insert(options.end(), program.common.begin(), program.common.end());
    return "Usage: " + std::string(program.name) + synopsis(command).substr(1) + "\n" +
           wrapped(command.summary, 0) + "\nOptions:\n" + optionLines(options) + "\n" + exitCodeLine();
}

int dispatch(const Program& program, int argc, char** argv) {
    Invocation call;
    call.program = program.name;
    call.argc = argc;
    call.argv = argv;
    const std::vector<std::string> args(argv + 1, argv + argc);
    const long at = commandIndex(program, args);
    // Before the command: the program's own --help and --version.
    for (long i = 0; i < (at < 0 ? static_cast<long>(args.size()) : at); ++i) {
        if (args[i] == "-h" || args[i] == "--help") {
            std::cout << programHelp(program);
            return kExitOk;
        }
        if (args[i] == "--version") {
            std::cout << program.name << " " << program.version << "\n";
            return kExitOk;
        }
    }
    if (at < 0) {
        std::cerr << programHelp(program);
        return kExitUsage;
    }
    call.command = args[at];
    if (call.command == "help") { // `help` alone, or `help COMMAND`
        const Command* asked =
            at + 1 < static_cast<long>(args.size()) ? findCommand(program, args[at + 1]) : nullptr;
        std::cout << (asked ? commandHelp(program, *asked) : programHelp(program));
        return kExitOk;
    }
    const Command* command = findCommand(program, call.command);
    if (!command)
        return usageError(call, "unknown command \"" + call.command +
                                    "\" (commands: " + commandNames(program) + ")");
    std::vector<std::string> rest(args.begin(), args.begin() + at);
    rest.insert(rest.end(), args.begin() + at + 1, args.end());
    switch (readOptions(program, *command, rest, call)) {
    case Parsed::Help:
        std::cout << commandHelp(program, *command);
        return kExitOk;
    case Parsed::Error:
        return kExitUsage;
    case Parsed::Ok:
        break;
    }
    return runCommand(program, *command, call);
}

} // namespace choreo::cli
