# The smoke run of one fuzz target (a CTest test, label `fuzz`):
#   cmake -DNAME=<target> -DMIN_RUNS=<n> -DREPORT=<file> -DCOMMAND=<target;its arguments> -P smoke.cmake
# runs it, prints its output, and fails when it failed or ran fewer than MIN_RUNS inputs
# (libFuzzer's stat::number_of_executed_units). One line per target goes to REPORT:
# executions, inputs it started from and inputs it added, which .ci/run prints at the end.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
string(REGEX MATCH "stat::number_of_executed_units: *([0-9]+)" ignored "${out}")
set(runs "${CMAKE_MATCH_1}")
string(REGEX MATCH "INFO: seed corpus: files: ([0-9]+)" ignored "${out}")
set(inputs "${CMAKE_MATCH_1}")
string(REGEX MATCH "stat::new_units_added: *([0-9]+)" ignored "${out}")
set(added "${CMAKE_MATCH_1}")
set(line "zarr.fuzz.${NAME}: ${runs} executions from ${inputs} inputs (committed corpus and seeds), ${added} new")
message("${line}")
file(WRITE "${REPORT}" "${line}\n")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "zarr.fuzz.${NAME} exited with ${status}")
endif()
if(runs STREQUAL "" OR runs LESS MIN_RUNS)
  message(FATAL_ERROR "zarr.fuzz.${NAME}: expected at least ${MIN_RUNS} executions, got '${runs}'")
endif()
