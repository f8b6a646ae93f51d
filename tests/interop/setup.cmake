# Installs zarrita.js (the versions pinned by package-lock.json here) and read_with_zarrita.mjs
# into the build tree for the write-interop test, once. Without node or npm it does nothing
# and the test says loudly that it was skipped; under CI (environment CI=true) that is an error.
find_program(NODE node)
find_program(NPM npm)
if(NOT NODE OR NOT NPM)
  if("$ENV{CI}" STREQUAL "true")
    message(FATAL_ERROR "node or npm not found: CI must run the zarrita write-interop test")
  endif()
  message(WARNING "node or npm not found: the zarrita write-interop test will be skipped")
  return()
endif()
file(MAKE_DIRECTORY ${NODE_DIR})
foreach(f package.json package-lock.json read_with_zarrita.mjs)
  file(COPY ${INTEROP_DIR}/${f} DESTINATION ${NODE_DIR})
endforeach()
if(NOT EXISTS ${NODE_DIR}/node_modules/zarrita/package.json)
  execute_process(COMMAND ${NPM} ci --no-audit --no-fund --loglevel=error
    WORKING_DIRECTORY ${NODE_DIR} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "npm ci failed (${rc}) in ${NODE_DIR}")
  endif()
endif()
