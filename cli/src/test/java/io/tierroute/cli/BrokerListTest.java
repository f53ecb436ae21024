package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * One Kafka under many spellings: what submit's single-writer guard compares. Two lists are one cluster when they
 * share a broker once each is spelled one way; no DNS is asked, so only spellings that need none are joined.
 */
class BrokerListTest {

    @Test
    void everyLoopbackSpellingIsOneHost() {
        for (String loopback : new String[] {"localhost:9092", "LOCALHOST:9092", "localhost.:9092", "127.0.0.1:9092",
                "127.1.2.3:9092", "[::1]:9092", "[0:0:0:0:0:0:0:1]:9092", "[0000::0001]:9092", "[::ffff:127.0.0.1]:9092",
                " PLAINTEXT://localhost:09092 "}) {
            assertThat(BrokerList.broker(loopback)).as(loopback).isEqualTo("loopback:9092");
        }
    }

    @Test
    void aHostIsLowerCaseWithoutItsRootDotAndAPortWithoutLeadingZeros() {
        assertThat(BrokerList.broker("Kafka-0.Kafka.SVC:9093")).isEqualTo("kafka-0.kafka.svc:9093");
        assertThat(BrokerList.broker("kafka-0.kafka.svc.:9093")).isEqualTo("kafka-0.kafka.svc:9093");
        assertThat(BrokerList.broker("SASL_SSL://b-1.kafka:09096")).isEqualTo("b-1.kafka:9096");
        assertThat(BrokerList.broker("10.0.0.7:9092")).isEqualTo("10.0.0.7:9092");
    }

    @Test
    void anIpv6AddressIsWrittenInFullAndAnIpv4MappedOneAsIpv4() {
        assertThat(BrokerList.broker("[2001:DB8::1]:9092")).isEqualTo("[2001:db8:0:0:0:0:0:1]:9092");
        assertThat(BrokerList.broker("[2001:0db8:0:0:0:0:0:0001]:9092")).isEqualTo("[2001:db8:0:0:0:0:0:1]:9092");
        assertThat(BrokerList.broker("[::ffff:10.0.0.7]:9092")).isEqualTo("10.0.0.7:9092");
    }

    @Test
    void whatNeedsAResolverOrIsNoAddressStaysAsWritten() {
        // 127.0.0.01 is ambiguous (octal to some resolvers), [1:2:3] no IPv6 address: kept, equal to themselves only
        assertThat(BrokerList.broker("127.0.0.01:9092")).isEqualTo("127.0.0.01:9092");
        assertThat(BrokerList.broker("[1:2:3]:9092")).isEqualTo("[1:2:3]:9092");
        assertThat(BrokerList.broker(" No-Port ")).isEqualTo("no-port");
    }

    @Test
    void aListIsItsBrokersSortedWithoutDuplicatesOrBlanks() {
        assertThat(BrokerList.normalise(" b:2 ,a:1,, localhost:9092,127.0.0.1:9092,A:1 "))
                .containsExactly("a:1", "b:2", "loopback:9092");
        assertThat(BrokerList.normalise("b:2,a:1")).isEqualTo(BrokerList.normalise("a:1,b:2"));
    }

    @Test
    void twoListsAreOneClusterWhenTheyShareABrokerHoweverSpelled() {
        for (String[] same : new String[][] {{"127.0.0.1:9092", "127.0.0.1:9092"}, {"localhost:9092", "127.0.0.1:9092"},
                {"[::1]:9092", "localhost:9092"}, {"PLAINTEXT://Kafka-0.K:9093", "kafka-0.k:9093"},
                {"a:9092,b:9092", "b:9092,a:9092"}, {" a:9092 , b:9092", "B:9092"}, {"a:1,b:2", "c:3,B:2"},
                {"kafka-0.k.:9093", "kafka-0.k:9093"}, {"[2001:db8::1]:9092", "[2001:DB8:0::0:1]:9092"},
                {"SASL_SSL://localhost:9092", "PLAINTEXT://[::1]:9092"}}) {
            assertThat(BrokerList.sameCluster(same[0], same[1])).as(String.join(" vs ", same)).isTrue();
            assertThat(BrokerList.sameCluster(same[1], same[0])).as(String.join(" vs ", same) + ", swapped").isTrue();
        }
    }

    @Test
    void noBrokerInCommonIsNotOneCluster() {
        // another port is another broker; a name and an address of one host differ without a resolver
        for (String[] other : new String[][] {{"127.0.0.1:9092", "127.0.0.1:9093"}, {"kafka-a:9092", "kafka-b:9092"},
                {"a:1,,b:2", "c:3,,d:4"}, {"10.0.0.7:9092", "kafka-0:9092"}, {"localhost:9092", "10.0.0.7:9092"},
                {"[2001:db8::1]:9092", "[2001:db8::2]:9092"}, {"127.0.0.01:9092", "127.0.0.1:9092"}}) {
            assertThat(BrokerList.sameCluster(other[0], other[1])).as(String.join(" vs ", other)).isFalse();
        }
    }
}
