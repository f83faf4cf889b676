# glia-run (tools/glia-run): tests/tools/glia_run_test.sh runs it on
# tests/tools/glia_run_worker.c, a glia program that creates its process group
# from the environment; one ctest test per case, each with a timeout (and every
# glia-run under timeout(1) inside), so a hang fails instead of hanging CI.
if(NOT TARGET glia-run)
  return()
endif()
add_executable(glia_run_worker ${CMAKE_CURRENT_LIST_DIR}/glia_run_worker.c)
target_link_libraries(glia_run_worker PRIVATE glia)
set_target_properties(glia_run_worker PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
foreach(case allreduce2 allreduce3 nodes exit signal sigterm grace orphan not_found environment usage)
  add_test(NAME tools.glia_run.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/glia_run_test.sh $<TARGET_FILE:glia-run> $<TARGET_FILE:glia_run_worker> ${case})
  set_tests_properties(tools.glia_run.${case} PROPERTIES LABELS tools TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()
