// Log messages go to a host callback (glia_set_log_callback) or nowhere.
#pragma once

#include <string>

namespace glia {

enum class LogLevel : int { Debug = 0, Info = 1, Warning = 2, Error = 3 };
using LogFn = void (*)(void* user_data, int level, const char* message);

void set_log_callback(LogFn fn, LogLevel min_level, void* user_data, void (*free_user_data)(void*));
bool log_enabled(LogLevel level);
void log(LogLevel level, const std::string& message);

}  // namespace glia
