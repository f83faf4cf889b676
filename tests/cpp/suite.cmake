# The C++17 wrapper include/glia/glia.hpp: a GoogleTest binary against it (compiled with the strictest
# warnings, as a user's project would), and examples/cpp/train.cpp as a test.
set(GLIA_CPP_WARNINGS -Wall -Wextra -Werror -pedantic)

add_executable(cpp_tests ${CMAKE_CURRENT_LIST_DIR}/glia_hpp_test.cpp ${CMAKE_CURRENT_LIST_DIR}/glia_ops_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/glia_dist_test.cpp)
set_target_properties(cpp_tests PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
target_compile_options(cpp_tests PRIVATE ${GLIA_CPP_WARNINGS})
target_include_directories(cpp_tests PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(cpp_tests PRIVATE glia GTest::gtest_main GTest::gtest)
gtest_discover_tests(cpp_tests TEST_PREFIX "cpp." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS cpp)

add_executable(example_cpp_train ${PROJECT_SOURCE_DIR}/examples/cpp/train.cpp)
set_target_properties(example_cpp_train PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF
  OUTPUT_NAME train_cpp)
target_compile_options(example_cpp_train PRIVATE ${GLIA_CPP_WARNINGS})
target_include_directories(example_cpp_train PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(example_cpp_train PRIVATE glia)
# Runs in its own directory: it writes circle.safetensors there.
set(GLIA_CPP_EXAMPLE_DIR ${CMAKE_CURRENT_BINARY_DIR}/example_cpp_train)
file(MAKE_DIRECTORY ${GLIA_CPP_EXAMPLE_DIR})
add_test(NAME example.cpp_train COMMAND example_cpp_train WORKING_DIRECTORY ${GLIA_CPP_EXAMPLE_DIR})
set_tests_properties(example.cpp_train PROPERTIES LABELS "cpp;examples" TIMEOUT 120)

# The generated wrappers (glia_ops.hpp, the Rust ops_gen.rs, the Go ops_gen.go and shim_gen.h, the coverage
# section of docs/bindings.md) are what scripts/gen_wrappers.py writes from the current glia.h.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME bindings.generated_wrappers_current
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gen_wrappers.py --check)
set_tests_properties(bindings.generated_wrappers_current PROPERTIES LABELS "cpp;bindings")
