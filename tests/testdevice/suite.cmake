# The test device (Note [Test device memory] in testdevice.cpp): a backend in
# host memory, loaded through the backend ABI like libglia_cuda.so, so that
# device dispatch, copies and the backend ABI are tested on every CI machine.
add_library(glia_testdevice SHARED ${CMAKE_CURRENT_LIST_DIR}/testdevice.cpp)
target_include_directories(glia_testdevice PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_options(glia_testdevice PRIVATE ${GLIA_WARNINGS})
set_target_properties(glia_testdevice PROPERTIES CXX_VISIBILITY_PRESET hidden)
target_link_options(glia_testdevice PRIVATE -Wl,--no-undefined)

# Every tests/testdevice/*_test.cpp: tests through the C API on the test device.
file(GLOB testdevice_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_test.cpp)
add_executable(testdevice_tests ${testdevice_srcs} ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
target_link_libraries(testdevice_tests PRIVATE glia GTest::gtest_main GTest::gtest ${CMAKE_DL_LIBS})
target_include_directories(testdevice_tests PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(testdevice_tests PRIVATE GLIA_TESTDEVICE_PATH="$<TARGET_FILE:glia_testdevice>"
  GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
add_dependencies(testdevice_tests glia_testdevice)
gtest_discover_tests(testdevice_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS testdevice)

# A backend without some kernels (the test device hides those named in GLIA_TESTDEVICE_WITHOUT_KERNELS):
# the ops fail cleanly. A binary of its own, since a backend's kernels are read once, when it loads.
add_executable(testdevice_missing_kernel ${CMAKE_CURRENT_LIST_DIR}/missing_kernel.cpp
  ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
target_link_libraries(testdevice_missing_kernel PRIVATE glia GTest::gtest_main GTest::gtest ${CMAKE_DL_LIBS})
target_include_directories(testdevice_missing_kernel PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(testdevice_missing_kernel PRIVATE GLIA_TESTDEVICE_PATH="$<TARGET_FILE:glia_testdevice>"
  GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
add_dependencies(testdevice_missing_kernel glia_testdevice)
add_test(NAME testdevice.missing_kernel COMMAND testdevice_missing_kernel)
set_tests_properties(testdevice.missing_kernel PROPERTIES LABELS testdevice
  ENVIRONMENT GLIA_TESTDEVICE_WITHOUT_KERNELS=embedding,mul)

# A backend built before the fields appended to ABI version 2, without pinned memory (GLIA_TESTDEVICE_MINIMAL):
# streams, events and non-blocking copies work through the core's fallbacks. Its own process, as above.
add_executable(testdevice_minimal_backend ${CMAKE_CURRENT_LIST_DIR}/streams_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
target_link_libraries(testdevice_minimal_backend PRIVATE glia GTest::gtest_main GTest::gtest ${CMAKE_DL_LIBS})
target_include_directories(testdevice_minimal_backend PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(testdevice_minimal_backend PRIVATE GLIA_TESTDEVICE_MINIMAL_RUN
  GLIA_TESTDEVICE_PATH="$<TARGET_FILE:glia_testdevice>" GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
add_dependencies(testdevice_minimal_backend glia_testdevice)
add_test(NAME testdevice.minimal_backend COMMAND testdevice_minimal_backend)
set_tests_properties(testdevice.minimal_backend PROPERTIES LABELS testdevice ENVIRONMENT GLIA_TESTDEVICE_MINIMAL=1)

# DataParallel's replicas on threads (data_parallel.cpp): a binary of its own, so that the tsan stage
# (scripts/test.sh) builds and runs it under ThreadSanitizer with little more than libglia.
add_executable(data_parallel_tests ${CMAKE_CURRENT_LIST_DIR}/data_parallel.cpp ${CMAKE_CURRENT_LIST_DIR}/collectives_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
target_link_libraries(data_parallel_tests PRIVATE glia GTest::gtest_main GTest::gtest ${CMAKE_DL_LIBS})
target_include_directories(data_parallel_tests PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(data_parallel_tests PRIVATE GLIA_TESTDEVICE_PATH="$<TARGET_FILE:glia_testdevice>"
  GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
add_dependencies(data_parallel_tests glia_testdevice)
gtest_discover_tests(data_parallel_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS testdevice)

# Training parity on the test device (tests/cuda/parity_test.cpp, which on a GPU compares the CPU with cuda:0):
# the MLP and LeNet trained 20 steps on the CPU and on testdevice:0 must agree (bit for bit here).
add_executable(testdevice_parity_tests ${PROJECT_SOURCE_DIR}/tests/cuda/parity_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
target_link_libraries(testdevice_parity_tests PRIVATE glia GTest::gtest_main GTest::gtest)
target_include_directories(testdevice_parity_tests PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(testdevice_parity_tests PRIVATE GLIA_TESTDEVICE_PATH="$<TARGET_FILE:glia_testdevice>"
  GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
target_compile_options(testdevice_parity_tests PRIVATE ${GLIA_WARNINGS})
add_dependencies(testdevice_parity_tests glia_testdevice)
gtest_discover_tests(testdevice_parity_tests DISCOVERY_TIMEOUT 60 TEST_PREFIX testdevice. PROPERTIES LABELS testdevice)
