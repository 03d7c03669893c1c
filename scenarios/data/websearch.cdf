# WebSearch flow sizes: the web-search cluster workload measured in the DCTCP paper
# (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010), as digitised in the ns-3
# HPCC simulator, alibaba-edu/High-Precision-Congestion-Control, file
# traffic_gen/WebSearch_distribution.txt (commit 9cf8b9e8c8d04a3775e06c972c4699dcbce53c37),
# which writes the same points with the cdf in percent.
# Piecewise linear between points; mean 1,711,250 bytes.
# size_bytes cdf
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
