package io.frsm.server;

/**
 * {@link NettyLeakCheckActiveTest} again under failsafe, which runs this module's node-level ITs:
 * paranoid detection is on there too and a leaking test fails.
 */
class NettyLeakCheckActiveIT extends NettyLeakCheckActiveTest {}
