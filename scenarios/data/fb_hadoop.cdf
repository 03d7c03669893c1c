# FB_Hadoop flow sizes: the Facebook Hadoop cluster measured by Roy et al., "Inside the Social
# Network's (Datacenter) Network", SIGCOMM 2015, as digitised in the ns-3 HPCC simulator,
# alibaba-edu/High-Precision-Congestion-Control, file traffic_gen/FbHdp_distribution.txt
# (commit 9cf8b9e8c8d04a3775e06c972c4699dcbce53c37), which writes the same points with the cdf
# in percent. Piecewise linear between points; mean 120,420.75 bytes.
# size_bytes cdf
0 0
100 0.01
200 0.02
300 0.05
350 0.15
400 0.2
500 0.3
600 0.4
700 0.5
1000 0.6
2000 0.67
7000 0.7
30000 0.72
50000 0.82
80000 0.87
120000 0.9
300000 0.95
1000000 0.975
2000000 0.99
10000000 1
