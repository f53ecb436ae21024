package io.tierroute.selector.config;

import io.tierroute.selector.config.KafkaSettings.HostPort;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostPortTest {

    @Test
    void namesV4AndBracketedV6AddressesParse() {
        assertThat(HostPort.parse("selector-0.peers:7411")).isEqualTo(new HostPort("selector-0.peers", 7411));
        assertThat(HostPort.parse(" 10.0.0.7:7411 ")).as("trimmed").isEqualTo(new HostPort("10.0.0.7", 7411));
        assertThat(HostPort.parse("[::]:7411")).isEqualTo(new HostPort("::", 7411));
        assertThat(HostPort.parse("[fd00::1]:1")).hasToString("[fd00::1]:1");
        assertThat(HostPort.parse("127.0.0.1:0", 0).port()).as("a listener's any free port").isZero();
    }

    @Test
    void eachMistakeIsNamed() {
        assertThatThrownBy(() -> HostPort.parse("h")).hasMessage("expected host:port, got 'h'");
        assertThatThrownBy(() -> HostPort.parse(":80")).hasMessage("expected host:port, got ':80'");
        assertThatThrownBy(() -> HostPort.parse("[::1]")).hasMessage("expected [IPv6 address]:port, got '[::1]'");
        assertThatThrownBy(() -> HostPort.parse("[::1]7411")).hasMessageContaining("expected [IPv6 address]:port");
        assertThatThrownBy(() -> HostPort.parse("[foo]:80")).hasMessageContaining("only an IPv6 address goes in brackets");
        assertThatThrownBy(() -> HostPort.parse("[]:80")).hasMessageContaining("only an IPv6 address goes in brackets");
        assertThatThrownBy(() -> HostPort.parse("fd00::1:7411")).hasMessageContaining("goes in brackets ([::1]:7411)");
        assertThatThrownBy(() -> HostPort.parse("h:x")).hasMessage("the port of 'h:x' is not a number");
        assertThatThrownBy(() -> HostPort.parse("h:0")).hasMessage("the port of 'h:0' must be 1-65535");
        assertThatThrownBy(() -> HostPort.parse("h:65536", 0)).hasMessage("the port of 'h:65536' must be 0-65535");
    }
}
