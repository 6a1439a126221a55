--liquibase formatted sql

--changeset quipu:009-subscriptions-for-existing-accounts
-- Accounts made before subscriptions existed (by create-key) have none, and an account without a current
-- subscription has no limits and so no access. Each gets the free plan, renewing at the next Lima month start.
insert into subscriptions (id, account_id, plan, started_at, renews_at)
select 'sub_' || left(md5(a.id::text || clock_timestamp()::text || random()::text), 24), a.id, 'free', now(),
       (date_trunc('month', now() at time zone 'America/Lima') + interval '1 month') at time zone 'America/Lima'
  from accounts a
 where a.deleted_at is null
   and not exists (select 1 from subscriptions s where s.account_id = a.id and s.ended_at is null);
