# Writes the Zarr v2 fixture (zarr_python2_fixture.py) into OUT with PYTHON, which must have
# zarr-python 2 and numcodecs (Debian's python3-zarr and python3-numcodecs, installed by
# tools/setup). Without them it writes nothing and the tests say loudly that they were
# skipped; under CI (environment CI=true) that is an error. A PYTHON that runs and fails
# otherwise (not an ImportError) is no missing peer: an error, always.
set(have 127)
if(PYTHON)
  execute_process(COMMAND ${PYTHON} -c
    "import sys\ntry:\n    import zarr, numcodecs\nexcept ImportError:\n    sys.exit(3)\nassert zarr.__version__.startswith('2.')"
    RESULT_VARIABLE have OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT have EQUAL 0 AND NOT have EQUAL 3 AND NOT have STREQUAL "no such file or directory" AND NOT have EQUAL 127)
  message(FATAL_ERROR "'${PYTHON}' is installed but failed (${have}) checking for zarr-python 2 with numcodecs")
endif()
if(NOT have EQUAL 0)
  if("$ENV{CI}" STREQUAL "true")
    message(FATAL_ERROR "'${PYTHON}' has no zarr-python 2 with numcodecs: CI must run the Zarr v2 interop tests")
  endif()
  message(WARNING "'${PYTHON}' has no zarr-python 2 with numcodecs: the Zarr v2 interop tests will be skipped")
  file(REMOVE_RECURSE ${OUT})
  return()
endif()
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "zarr_python2_fixture.py failed (${rc})")
endif()
