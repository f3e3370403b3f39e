// Package race says whether the race detector is on, for tests that size
// their work by it: the detector slows dense loops some tenfold and finds
// no more races in a thousand random cases than in a hundred, so under it
// such tests run fewer cases, and .ci/run runs them in full without it.
package race
