/**
 * Client meters in a Micrometer {@code MeterRegistry} the application passes ({@link
 * io.frsm.client.micrometer.MicrometerObserver}); needs {@code io.micrometer:micrometer-core} on
 * the application's class path.
 */
package io.frsm.client.micrometer;
