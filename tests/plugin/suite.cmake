# examples/plugin/host.c: a C host that dlopen()s libglia (no link-time dependency on it: only
# -ldl and pthreads), runs a checkpointed MLP per frame on its own job system, unloads the
# library and loads it again. The test passes the library's path on the command line.
add_executable(plugin_host ${PROJECT_SOURCE_DIR}/examples/plugin/host.c)
set_target_properties(plugin_host PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_compile_options(plugin_host PRIVATE -Wall -Wextra -Werror)
target_include_directories(plugin_host PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(plugin_host PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
add_dependencies(plugin_host glia)
add_test(NAME plugin.host_reload COMMAND plugin_host $<TARGET_FILE:glia> ${CMAKE_CURRENT_BINARY_DIR}/plugin_mlp.safetensors)
# Pass = exit 0 (both rounds equal, no leak: under ASan, LeakSanitizer fails the exit status).
set_tests_properties(plugin.host_reload PROPERTIES LABELS plugin TIMEOUT 300)
# The version check: a host built against another major version refuses the library.
add_executable(plugin_host_wrong_major ${PROJECT_SOURCE_DIR}/examples/plugin/host.c)
set_target_properties(plugin_host_wrong_major PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_compile_definitions(plugin_host_wrong_major PRIVATE GLIA_HOST_PRETEND_MAJOR=99)
target_include_directories(plugin_host_wrong_major PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(plugin_host_wrong_major PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
add_dependencies(plugin_host_wrong_major glia)
add_test(NAME plugin.host_refuses_other_major COMMAND plugin_host_wrong_major $<TARGET_FILE:glia>)
set_tests_properties(plugin.host_refuses_other_major PROPERTIES LABELS plugin TIMEOUT 60
  PASS_REGULAR_EXPRESSION "built against glia major 99; refusing it")
