# The TFRC/TCP dumbbell of crates/core/tests/tfrc.rs in ns-2.35 (Debian ns2):
#   ns ns2_tfrc_tcp.tcl QUEUE_PACKETS
# prints both flows' wire rates through the last hop over 120 s and their ratio.
set ns [new Simulator]
set qlen [lindex $argv 0]
set a [$ns node]; set b [$ns node]; set r1 [$ns node]; set r2 [$ns node]; set x [$ns node]; set y [$ns node]
$ns duplex-link $a $r1 100Mb 1ms DropTail
$ns duplex-link $b $r1 100Mb 1ms DropTail
$ns duplex-link $r1 $r2 2Mb 18ms DropTail
$ns queue-limit $r1 $r2 $qlen
$ns duplex-link $r2 $x 100Mb 1ms DropTail
$ns duplex-link $r2 $y 100Mb 1ms DropTail
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 44
set tcp [new Agent/TCP/Newreno]
set sink [new Agent/TCPSink/DelAck]
$ns attach-agent $b $tcp; $ns attach-agent $y $sink; $ns connect $tcp $sink
set ftp [new Application/FTP]; $ftp attach-agent $tcp
set tf [new Agent/TFRC]
$tf set packetSize_ 1500
set tfs [new Agent/TFRCSink]
$ns attach-agent $a $tf; $ns attach-agent $x $tfs; $ns connect $tf $tfs
set qx [$ns monitor-queue $r2 $x [open /dev/null w]]
set qy [$ns monitor-queue $r2 $y [open /dev/null w]]
$ns at 0.0 "$ftp start"
$ns at 0.0 "$tf start"
proc fin {} { global tcp sink tf tfs qx qy
  puts "tcp_wire_bps [expr [$qy set bdepartures_]*8/120.0]"
  puts "tfrc_wire_bps [expr [$qx set bdepartures_]*8/120.0]"
  puts "ratio [expr double([$qx set bdepartures_])/[$qy set bdepartures_]]"
  exit 0 }
$ns at 120.0 "fin"
$ns run
