package actor

// KeyHash lets tests replace the hash of cache keys.
var KeyHash = &keyHash
