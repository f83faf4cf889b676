# dlopen_cycle loads libglia with dlopen() (it is deliberately not linked to
# it, so that dlclose() can really unload it) and checks that glia_shutdown()
# leaves nothing that pins the library or keeps a thread running.
add_executable(dlopen_cycle ${CMAKE_CURRENT_LIST_DIR}/dlopen_cycle.cpp)
target_include_directories(dlopen_cycle PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(dlopen_cycle PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
target_compile_definitions(dlopen_cycle PRIVATE GLIA_LIBRARY_PATH="$<TARGET_FILE:glia>")
add_dependencies(dlopen_cycle glia)
add_test(NAME dlopen_cycle COMMAND dlopen_cycle)
set_tests_properties(dlopen_cycle PROPERTIES LABELS dlopen TIMEOUT 120)
