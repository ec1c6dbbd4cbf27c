/* sample_support.hpp — the few lines several C++ samples share: reading a small file (an ALSA configuration),
 * player options for --device NAME [--device-config ALSA_CONFIG_FILE], a --header "Name: value" argument, and
 * printing a voicenote::error. Not a sample itself (the Makefile and CMakeLists.txt build each *.cpp here); a
 * sample includes it as "sample_support.hpp", so `c++ ... play.cpp` still builds one sample on its own.
 */
#ifndef VOICENOTE_SAMPLE_SUPPORT_HPP
#define VOICENOTE_SAMPLE_SUPPORT_HPP

#include <voicenote.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

namespace sample {

/** The whole text of a small file, or nothing when it cannot be read. */
inline std::optional<std::string> read_text(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/**
 * Player options for --device NAME [--device-config ALSA_CONFIG_FILE]: the device, and the file's text as its ALSA
 * configuration (player_options::device_configuration; the library parses it). Nothing, after
 * "PROGRAM: cannot read FILE" on stderr, when the file cannot be read.
 */
inline std::optional<voicenote::player_options> player_options(const char *program,
                                                                const std::optional<std::string> &device,
                                                                const std::optional<std::string> &config_path) {
    voicenote::player_options options;
    options.device = device;
    if (config_path) {
        options.device_configuration = read_text(*config_path);
        if (!options.device_configuration) {
            std::fprintf(stderr, "%s: cannot read %s\n", program, config_path->c_str());
            return std::nullopt;
        }
    }
    return options;
}

/** A --header argument, "Name: value", as its name and value (blanks after the colon dropped); nothing without a
 *  name. The library checks the name (a token) and the value (no line breaks). */
inline std::optional<std::pair<std::string, std::string>> parse_header(const std::string &argument) {
    auto colon = argument.find(':');
    if (colon == std::string::npos || colon == 0) return std::nullopt;
    auto start = argument.find_first_not_of(" \t", colon + 1);
    return std::make_pair(argument.substr(0, colon), start == std::string::npos ? "" : argument.substr(start));
}

/** Prints "PROGRAM: STEP: NAME (DESCRIPTION): DETAIL" for a refused call on stderr; returns the exit status 1. */
inline int print_error(const char *program, const char *step, const voicenote::error &e) {
    std::fprintf(stderr, "%s: %s: %s (%s): %s\n", program, step, e.name(), e.code().message().c_str(),
                 e.detail().c_str());
    return 1;
}

} // namespace sample

#endif /* VOICENOTE_SAMPLE_SUPPORT_HPP */
