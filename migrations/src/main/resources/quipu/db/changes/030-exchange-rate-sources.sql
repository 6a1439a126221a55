--liquibase formatted sql

--changeset quipu:030-exchange-rate-sources
-- Rates of three sources (contract §12): BCRP's interbank rates, SBS's banking-system average (republished by BCRP)
-- and SUNAT's own publication. One day may have a rate of each, so the source joins both keys. Every row stored so
-- far came from BCRP: exchange_rates already says so in fuente; the gaps, which had no such column, are BCRP's.
alter table exchange_rates drop constraint exchange_rates_pkey;
alter table exchange_rates add primary key (fuente, moneda, fecha);
alter table exchange_rates add constraint exchange_rates_fuente check (fuente in ('bcrp', 'sbs', 'sunat'));

alter table exchange_rate_gaps add column fuente text not null default 'bcrp';
alter table exchange_rate_gaps alter column fuente drop default;
alter table exchange_rate_gaps drop constraint exchange_rate_gaps_pkey;
alter table exchange_rate_gaps add primary key (fuente, moneda, fecha);
alter table exchange_rate_gaps add constraint exchange_rate_gaps_fuente check (fuente in ('bcrp', 'sbs', 'sunat'));
