package control

// SetScanCheck makes Loop look at the host's memory with check every
// every bytes of scan outputs, for a test; it returns the restore.
func SetScanCheck(check func(n int64) error, every int64) (restore func()) {
	oldCheck, oldEvery := hostCheck, scanCheckEvery
	hostCheck, scanCheckEvery = check, every
	return func() { hostCheck, scanCheckEvery = oldCheck, oldEvery }
}
