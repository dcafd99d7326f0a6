(* Mapcheck.Rel -- owned by the mapcheck Coq library (proofs-export/lib).

   Relations over events as Prop-valued predicates: the relational algebra of
   herd's cat language (union, inter, minus, seq, inv, id_on, cross, compl,
   tc = r+, rtc = r*, opt = r?), the properties checked by cat axioms
   (irreflexive, acyclic, empty) and their basic lemmas (monotonicity,
   transitivity, associativity, ...).

   cat's r*, r? and ~r are relative to the execution's events: the universe U
   is an explicit argument of rtc, opt, compl and set_compl.

   Only the Coq standard library is used; no axioms. Do not [Import] Coq's
   List after this file: List.seq would shadow [seq] below. *)

Definition event := nat.
Definition set := event -> Prop.
Definition rel := event -> event -> Prop.

(* ------------------------------------------------------------------ *)
(* Sets                                                                *)

Definition set0 : set := fun _ => False.
Definition set_union (a b : set) : set := fun x => a x \/ b x.
Definition set_inter (a b : set) : set := fun x => a x /\ b x.
Definition set_minus (a b : set) : set := fun x => a x /\ ~ b x.
Definition set_compl (U a : set) : set := fun x => U x /\ ~ a x.
Definition set_empty (a : set) : Prop := forall x, ~ a x.
Definition set_incl (a b : set) : Prop := forall x, a x -> b x.
Definition set_same (a b : set) : Prop := set_incl a b /\ set_incl b a.
(* Finitely many elements: all below some number. *)
Definition set_finite (a : set) : Prop := exists m, forall x, a x -> x < m.

(* ------------------------------------------------------------------ *)
(* Relations                                                           *)

Definition domain (r : rel) : set := fun x => exists y, r x y.
Definition range (r : rel) : set := fun y => exists x, r x y.

Definition rel0 : rel := fun _ _ => False.
Definition union (r s : rel) : rel := fun x y => r x y \/ s x y.
Definition inter (r s : rel) : rel := fun x y => r x y /\ s x y.
Definition minus (r s : rel) : rel := fun x y => r x y /\ ~ s x y.
Definition seq (r s : rel) : rel := fun x y => exists z, r x z /\ s z y.
Definition inv (r : rel) : rel := fun x y => r y x.
Definition id_on (a : set) : rel := fun x y => a x /\ x = y.
Definition cross (a b : set) : rel := fun x y => a x /\ b y.
Definition compl (U : set) (r : rel) : rel := fun x y => U x /\ U y /\ ~ r x y.

Inductive tc (r : rel) : rel :=
| tc_once : forall x y, r x y -> tc r x y
| tc_step : forall x z y, r x z -> tc r z y -> tc r x y.

Inductive rtc (U : set) (r : rel) : rel :=
| rtc_refl : forall x, U x -> rtc U r x x
| rtc_step : forall x z y, r x z -> rtc U r z y -> rtc U r x y.

Definition opt (U : set) (r : rel) : rel := union (id_on U) r.

Definition inclusion (r s : rel) : Prop := forall x y, r x y -> s x y.
Definition same_rel (r s : rel) : Prop := inclusion r s /\ inclusion s r.
Definition irreflexive (r : rel) : Prop := forall x, ~ r x x.
Definition acyclic (r : rel) : Prop := irreflexive (tc r).
Definition empty (r : rel) : Prop := forall x y, ~ r x y.

(* ------------------------------------------------------------------ *)
(* Inclusion and equivalence are preorders / equivalences              *)

Lemma incl_refl : forall r, inclusion r r.
Proof. unfold inclusion; auto. Qed.

Lemma incl_trans : forall r s t, inclusion r s -> inclusion s t -> inclusion r t.
Proof. unfold inclusion; auto. Qed.

Lemma same_rel_refl : forall r, same_rel r r.
Proof. intro r; split; apply incl_refl. Qed.

Lemma same_rel_sym : forall r s, same_rel r s -> same_rel s r.
Proof. intros r s [H1 H2]; split; assumption. Qed.

Lemma same_rel_trans : forall r s t, same_rel r s -> same_rel s t -> same_rel r t.
Proof. intros r s t [H1 H2] [H3 H4]; split; eapply incl_trans; eassumption. Qed.

Lemma set_incl_refl : forall a, set_incl a a.
Proof. unfold set_incl; auto. Qed.

Lemma set_incl_trans : forall a b c, set_incl a b -> set_incl b c -> set_incl a c.
Proof. unfold set_incl; auto. Qed.

Lemma set_same_refl : forall a, set_same a a.
Proof. intro a; split; apply set_incl_refl. Qed.

(* ------------------------------------------------------------------ *)
(* Monotonicity (antitone positions take the inclusion reversed)       *)

Lemma union_mono : forall r1 r2 s1 s2,
  inclusion r1 r2 -> inclusion s1 s2 -> inclusion (union r1 s1) (union r2 s2).
Proof. unfold inclusion, union; intuition. Qed.

Lemma inter_mono : forall r1 r2 s1 s2,
  inclusion r1 r2 -> inclusion s1 s2 -> inclusion (inter r1 s1) (inter r2 s2).
Proof. unfold inclusion, inter; intuition. Qed.

Lemma minus_mono : forall r1 r2 s1 s2,
  inclusion r1 r2 -> inclusion s2 s1 -> inclusion (minus r1 s1) (minus r2 s2).
Proof. unfold inclusion, minus; intuition eauto. Qed.

Lemma minus_mono_l : forall r1 r2 s,
  inclusion r1 r2 -> inclusion (minus r1 s) (minus r2 s).
Proof. intros; apply minus_mono; [assumption | apply incl_refl]. Qed.

Lemma seq_mono : forall r1 r2 s1 s2,
  inclusion r1 r2 -> inclusion s1 s2 -> inclusion (seq r1 s1) (seq r2 s2).
Proof. unfold inclusion, seq; intros r1 r2 s1 s2 H1 H2 x y [z [A B]]; eauto. Qed.

Lemma inv_mono : forall r s, inclusion r s -> inclusion (inv r) (inv s).
Proof. unfold inclusion, inv; auto. Qed.

Lemma id_on_mono : forall a b, set_incl a b -> inclusion (id_on a) (id_on b).
Proof. unfold set_incl, inclusion, id_on; intuition. Qed.

Lemma cross_mono : forall a1 a2 b1 b2,
  set_incl a1 a2 -> set_incl b1 b2 -> inclusion (cross a1 b1) (cross a2 b2).
Proof. unfold set_incl, inclusion, cross; intuition. Qed.

Lemma compl_mono : forall U r s, inclusion r s -> inclusion (compl U s) (compl U r).
Proof. unfold inclusion, compl; intuition eauto. Qed.

Lemma tc_mono : forall r s, inclusion r s -> inclusion (tc r) (tc s).
Proof.
  intros r s H x y T; induction T.
  - apply tc_once; auto.
  - eapply tc_step; eauto.
Qed.

Lemma rtc_mono : forall U r s, inclusion r s -> inclusion (rtc U r) (rtc U s).
Proof.
  intros U r s H x y T; induction T.
  - apply rtc_refl; auto.
  - eapply rtc_step; eauto.
Qed.

Lemma rtc_mono_U : forall U V r, set_incl U V -> inclusion (rtc U r) (rtc V r).
Proof.
  intros U V r H x y T; induction T.
  - apply rtc_refl; auto.
  - eapply rtc_step; eauto.
Qed.

Lemma opt_mono : forall U r s, inclusion r s -> inclusion (opt U r) (opt U s).
Proof. intros; unfold opt; apply union_mono; [apply incl_refl | assumption]. Qed.

Lemma domain_mono : forall r s, inclusion r s -> set_incl (domain r) (domain s).
Proof. unfold inclusion, set_incl, domain; intros r s H x [y Hy]; eauto. Qed.

Lemma range_mono : forall r s, inclusion r s -> set_incl (range r) (range s).
Proof. unfold inclusion, set_incl, range; intros r s H x [y Hy]; eauto. Qed.

Lemma set_union_mono : forall a1 a2 b1 b2,
  set_incl a1 a2 -> set_incl b1 b2 -> set_incl (set_union a1 b1) (set_union a2 b2).
Proof. unfold set_incl, set_union; intuition. Qed.

Lemma set_inter_mono : forall a1 a2 b1 b2,
  set_incl a1 a2 -> set_incl b1 b2 -> set_incl (set_inter a1 b1) (set_inter a2 b2).
Proof. unfold set_incl, set_inter; intuition. Qed.

Lemma set_minus_mono : forall a1 a2 b1 b2,
  set_incl a1 a2 -> set_incl b2 b1 -> set_incl (set_minus a1 b1) (set_minus a2 b2).
Proof. unfold set_incl, set_minus; intuition eauto. Qed.

Lemma set_compl_mono : forall U a b, set_incl a b -> set_incl (set_compl U b) (set_compl U a).
Proof. unfold set_incl, set_compl; intuition eauto. Qed.

(* ------------------------------------------------------------------ *)
(* Checks are antitone                                                 *)

Lemma irreflexive_incl : forall r s, inclusion r s -> irreflexive s -> irreflexive r.
Proof. unfold inclusion, irreflexive; eauto. Qed.

Lemma acyclic_incl : forall r s, inclusion r s -> acyclic s -> acyclic r.
Proof. unfold acyclic; intros; eapply irreflexive_incl; [apply tc_mono|]; eassumption. Qed.

Lemma empty_incl : forall r s, inclusion r s -> empty s -> empty r.
Proof. unfold inclusion, empty; eauto. Qed.

Lemma set_empty_incl : forall a b, set_incl a b -> set_empty b -> set_empty a.
Proof. unfold set_incl, set_empty; eauto. Qed.

Lemma irreflexive_same : forall r s, same_rel r s -> (irreflexive r <-> irreflexive s).
Proof. intros r s [H1 H2]; split; apply irreflexive_incl; assumption. Qed.

Lemma acyclic_same : forall r s, same_rel r s -> (acyclic r <-> acyclic s).
Proof. intros r s [H1 H2]; split; apply acyclic_incl; assumption. Qed.

Lemma empty_same : forall r s, same_rel r s -> (empty r <-> empty s).
Proof. intros r s [H1 H2]; split; apply empty_incl; assumption. Qed.

(* ------------------------------------------------------------------ *)
(* Algebra                                                             *)

Lemma union_comm : forall r s, same_rel (union r s) (union s r).
Proof. unfold same_rel, inclusion, union; intuition. Qed.

Lemma union_assoc : forall r s t, same_rel (union (union r s) t) (union r (union s t)).
Proof. unfold same_rel, inclusion, union; intuition. Qed.

Lemma union_idem : forall r, same_rel (union r r) r.
Proof. unfold same_rel, inclusion, union; intuition. Qed.

Lemma union_rel0_l : forall r, same_rel (union rel0 r) r.
Proof. unfold same_rel, inclusion, union, rel0; intuition. Qed.

Lemma union_incl_l : forall r s, inclusion r (union r s).
Proof. unfold inclusion, union; auto. Qed.

Lemma union_incl_r : forall r s, inclusion s (union r s).
Proof. unfold inclusion, union; auto. Qed.

Lemma union_lub : forall r s t, inclusion r t -> inclusion s t -> inclusion (union r s) t.
Proof. unfold inclusion, union; intuition. Qed.

Lemma inter_comm : forall r s, same_rel (inter r s) (inter s r).
Proof. unfold same_rel, inclusion, inter; intuition. Qed.

Lemma inter_assoc : forall r s t, same_rel (inter (inter r s) t) (inter r (inter s t)).
Proof. unfold same_rel, inclusion, inter; intuition. Qed.

Lemma inter_incl_l : forall r s, inclusion (inter r s) r.
Proof. unfold inclusion, inter; intuition. Qed.

Lemma inter_incl_r : forall r s, inclusion (inter r s) s.
Proof. unfold inclusion, inter; intuition. Qed.

Lemma minus_incl : forall r s, inclusion (minus r s) r.
Proof. unfold inclusion, minus; intuition. Qed.

Lemma seq_assoc : forall r s t, same_rel (seq (seq r s) t) (seq r (seq s t)).
Proof.
  unfold same_rel, inclusion, seq; split.
  - intros x y [w [[z [A B]] C]]; eauto.
  - intros x y [z [A [w [B C]]]]; eauto.
Qed.

Lemma seq_union_l : forall r s t, same_rel (seq (union r s) t) (union (seq r t) (seq s t)).
Proof.
  unfold same_rel, inclusion, seq, union; split.
  - intros x y [z [[A|A] B]]; eauto.
  - intros x y [[z [A B]]|[z [A B]]]; eauto.
Qed.

Lemma seq_union_r : forall r s t, same_rel (seq r (union s t)) (union (seq r s) (seq r t)).
Proof.
  unfold same_rel, inclusion, seq, union; split.
  - intros x y [z [A [B|B]]]; eauto.
  - intros x y [[z [A B]]|[z [A B]]]; eauto.
Qed.

Lemma seq_id_l : forall U r, inclusion (seq (id_on U) r) r.
Proof. unfold inclusion, seq, id_on; intros U r x y [z [[_ E] H]]; subst; auto. Qed.

Lemma seq_id_r : forall U r, inclusion (seq r (id_on U)) r.
Proof. unfold inclusion, seq, id_on; intros U r x y [z [H [_ E]]]; subst; auto. Qed.

Lemma inv_inv : forall r, same_rel (inv (inv r)) r.
Proof. unfold same_rel, inclusion, inv; auto. Qed.

Lemma inv_seq : forall r s, same_rel (inv (seq r s)) (seq (inv s) (inv r)).
Proof.
  unfold same_rel, inclusion, inv, seq; split; intros x y [z [A B]]; eauto.
Qed.

Lemma inv_union : forall r s, same_rel (inv (union r s)) (union (inv r) (inv s)).
Proof. unfold same_rel, inclusion, inv, union; auto. Qed.

(* ------------------------------------------------------------------ *)
(* Transitive closure                                                  *)

Lemma tc_incl : forall r, inclusion r (tc r).
Proof. intros r x y H; apply tc_once; assumption. Qed.

Lemma tc_trans : forall r x y z, tc r x y -> tc r y z -> tc r x z.
Proof.
  intros r x y z H; induction H; intro H'.
  - eapply tc_step; eassumption.
  - eapply tc_step; eauto.
Qed.

Lemma tc_step_r : forall r x z y, tc r x z -> r z y -> tc r x y.
Proof. intros; eapply tc_trans; [eassumption | apply tc_once; assumption]. Qed.

(* Induction principle following the path from its end. *)
Lemma tc_ind_r : forall (r : rel) (P : rel),
  (forall x y, r x y -> P x y) ->
  (forall x z y, tc r x z -> P x z -> r z y -> P x y) ->
  forall x y, tc r x y -> P x y.
Proof.
  intros r P H1 H2.
  (* Every path is a prefix path extended by steps at its end: prove, for a
     fixed start x, that P x holds all along the path from x. *)
  assert (G : forall x z, tc r x z -> tc r x z /\ P x z ->
              forall y, tc r z y -> P x y).
  { intros x z _ Hxz y T; revert Hxz; induction T as [z y R|z m y R T IH]; intros [Txz Pxz].
    - apply (H2 x z y); auto.
    - apply IH; split.
      + eapply tc_step_r; eassumption.
      + apply (H2 x z m); auto. }
  intros x y T; destruct T as [x y R|x m y R T].
  - auto.
  - apply (G x m (tc_once r x m R)); [split; [apply tc_once|]|]; auto.
Qed.

Lemma tc_idem : forall r, same_rel (tc (tc r)) (tc r).
Proof.
  intro r; split.
  - intros x y T; induction T; [assumption | eapply tc_trans; eassumption].
  - apply tc_incl.
Qed.

Lemma tc_lfp : forall r s, inclusion r s -> inclusion (seq s s) s -> inclusion (tc r) s.
Proof.
  intros r s H1 H2 x y T; induction T.
  - auto.
  - apply H2; eexists; eauto.
Qed.

Lemma tc_seq_incl : forall r, inclusion (seq (tc r) (tc r)) (tc r).
Proof. intros r x y [z [A B]]; eapply tc_trans; eassumption. Qed.

Lemma tc_union_l : forall r s, inclusion (tc r) (tc (union r s)).
Proof. intros; apply tc_mono, union_incl_l. Qed.

Lemma tc_union_r : forall r s, inclusion (tc s) (tc (union r s)).
Proof. intros; apply tc_mono, union_incl_r. Qed.

Lemma tc_inv : forall r, same_rel (tc (inv r)) (inv (tc r)).
Proof.
  intro r; split.
  - intros x y T; induction T; unfold inv in *.
    + apply tc_once; assumption.
    + eapply tc_step_r; eassumption.
  - intros x y T; unfold inv in T; induction T.
    + apply tc_once; assumption.
    + eapply tc_step_r; eassumption.
Qed.

(* ------------------------------------------------------------------ *)
(* Reflexive-transitive closure                                        *)

Lemma rtc_tc : forall U r x y, rtc U r x y <-> U y /\ (x = y \/ tc r x y).
Proof.
  intros U r x y; split.
  - intro T; induction T as [x Ux|x z y R T [Uy [E|Tzy]]].
    + auto.
    + subst; split; [assumption | right; apply tc_once; assumption].
    + split; [assumption | right; eapply tc_step; eassumption].
  - intros [Uy [E|T]].
    + subst; apply rtc_refl; assumption.
    + induction T.
      * eapply rtc_step; [eassumption | apply rtc_refl; assumption].
      * eapply rtc_step; eauto.
Qed.

Lemma rtc_refl' : forall (U : set) r x, U x -> rtc U r x x.
Proof. intros; apply rtc_refl; assumption. Qed.

Lemma rtc_of_tc : forall (U : set) r x y, U y -> tc r x y -> rtc U r x y.
Proof. intros; apply rtc_tc; auto. Qed.

Lemma rtc_trans : forall U r x y z, rtc U r x y -> rtc U r y z -> rtc U r x z.
Proof.
  intros U r x y z H; induction H; intro H'.
  - assumption.
  - eapply rtc_step; eauto.
Qed.

Lemma tc_rtc_seq : forall (U : set) r x y, U y -> tc r x y -> seq r (rtc U r) x y.
Proof.
  intros U r x y Uy T; induction T.
  - exists y; split; [assumption | apply rtc_refl; assumption].
  - exists z; split; [assumption | apply rtc_of_tc; assumption].
Qed.

(* ------------------------------------------------------------------ *)
(* Acyclicity                                                          *)

Lemma acyclic_union_l : forall r s, acyclic (union r s) -> acyclic r.
Proof. intros; eapply acyclic_incl; [apply union_incl_l | eassumption]. Qed.

Lemma acyclic_union_r : forall r s, acyclic (union r s) -> acyclic s.
Proof. intros; eapply acyclic_incl; [apply union_incl_r | eassumption]. Qed.

Lemma acyclic_irreflexive : forall r, acyclic r -> irreflexive r.
Proof. intros r H x Hx; apply (H x); apply tc_once; assumption. Qed.

Lemma acyclic_tc : forall r, acyclic (tc r) <-> acyclic r.
Proof.
  intro r; split.
  - apply acyclic_incl, tc_incl.
  - intros H x Hx; apply (H x); apply tc_idem; assumption.
Qed.

Lemma acyclic_inv : forall r, acyclic r -> acyclic (inv r).
Proof. intros r H x Hx; apply (H x); apply tc_inv in Hx; exact Hx. Qed.

Lemma irreflexive_union : forall r s,
  irreflexive r -> irreflexive s -> irreflexive (union r s).
Proof. unfold irreflexive, union; intros r s H1 H2 x [A|A]; [eapply H1 | eapply H2]; eassumption. Qed.

Lemma empty_union : forall r s, empty r -> empty s -> empty (union r s).
Proof. unfold empty, union; intros r s H1 H2 x y [A|A]; [eapply H1 | eapply H2]; eassumption. Qed.

Lemma empty_acyclic : forall r, empty r -> acyclic r.
Proof. intros r H x T; destruct T; eapply H; eassumption. Qed.
